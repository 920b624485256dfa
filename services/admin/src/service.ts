import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, adminRoutes } from '@market/shared';

export const adminService = defineService({
  name: 'admin',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(adminRoutes) }),
});
