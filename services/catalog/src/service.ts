import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, catalogRoutes } from '@market/shared';

export const catalogService = defineService({
  name: 'catalog',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(catalogRoutes) }),
});
