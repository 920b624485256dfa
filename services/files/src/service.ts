import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, filesRoutes } from '@market/shared';

export const filesService = defineService({
  name: 'files',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(filesRoutes) }),
});
