import type { AnyRoute } from './route';
import { identityRoutes } from './identity';
import { adminRoutes } from './admin';
import { catalogRoutes } from './catalog';
import { ordersRoutes } from './orders';
import { walletRoutes } from './wallet';
import { withdrawalRoutes } from './withdrawals';
import { filesRoutes } from './files';
import { notifyRoutes } from './notify';

export * from './route';
export * from './identity';
export * from './admin';
export * from './catalog';
export * from './orders';
export * from './wallet';
export * from './withdrawals';
export * from './files';
export * from './notify';

export const allRoutes: AnyRoute[] = [
  ...identityRoutes,
  ...catalogRoutes,
  ...ordersRoutes,
  ...walletRoutes,
  ...withdrawalRoutes,
  ...filesRoutes,
  ...notifyRoutes,
  ...adminRoutes,
];
