import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, identityRoutes } from '@market/shared';

export const identityService = defineService({
  name: 'identity',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(identityRoutes) }),
});
