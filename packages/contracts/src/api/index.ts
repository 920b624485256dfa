import type { AnyRoute } from './route';
import { identityRoutes } from './identity';
import { adminRoutes } from './admin';
import { catalogRoutes } from './catalog';
import { ordersRoutes } from './orders';
import { ratingRoutes } from './ratings';
import { walletRoutes } from './wallet';
import { withdrawalRoutes } from './withdrawals';
import { refundRoutes } from './refunds';
import { filesRoutes } from './files';
import { notifyRoutes } from './notify';

export * from './route';
export * from './identity';
export * from './admin';
export * from './catalog';
export * from './orders';
export * from './ratings';
export * from './wallet';
export * from './withdrawals';
export * from './refunds';
export * from './files';
export * from './notify';

export const allRoutes: AnyRoute[] = [
  ...identityRoutes,
  ...catalogRoutes,
  ...ordersRoutes,
  ...ratingRoutes,
  ...walletRoutes,
  ...withdrawalRoutes,
  ...refundRoutes,
  ...filesRoutes,
  ...notifyRoutes,
  ...adminRoutes,
];
