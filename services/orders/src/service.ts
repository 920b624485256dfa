import { CreateIdempotencyKeys1763800000001, CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, ordersRoutes } from '@market/shared';

export const ordersService = defineService({
  name: 'orders',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, CreateIdempotencyKeys1763800000001],
  build: () => ({ routes: notImplementedRoutes(ordersRoutes) }),
});
