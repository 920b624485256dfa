import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, notifyRoutes } from '@market/shared';

export const notifyService = defineService({
  name: 'notify',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(notifyRoutes) }),
});
