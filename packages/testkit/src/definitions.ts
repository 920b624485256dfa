import type { ServiceName } from '@market/contracts';
import type { ServiceDefinition } from '@market/shared/service';
import { adminService } from '@market/admin/service';
import { catalogService } from '@market/catalog/service';
import { filesService } from '@market/files/service';
import { identityService } from '@market/identity/service';
import { notifyService } from '@market/notify/service';
import { ordersService } from '@market/orders/service';
import { walletService } from '@market/wallet/service';

/** Every service as the kit starts it, by name: its environment shape, routes and handlers. */
export const DEFINITIONS: Record<ServiceName, ServiceDefinition<any>> = {
  identity: identityService,
  catalog: catalogService,
  orders: ordersService,
  wallet: walletService,
  files: filesService,
  notify: notifyService,
  admin: adminService,
};
