import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, ordersRoutes } from '@market/shared';

export const ordersService = defineService({
  name: 'orders',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(ordersRoutes) }),
});
