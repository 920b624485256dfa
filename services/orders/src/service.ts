import { CreateOutboxAndInbox1763800000000, defineService, idempotencyMigrations, notImplementedRoutes, ordersRoutes } from '@market/shared';

export const ordersService = defineService({
  name: 'orders',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, ...idempotencyMigrations],
  build: () => ({ routes: notImplementedRoutes(ordersRoutes) }),
});
