import { CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, walletRoutes } from '@market/shared';

export const walletService = defineService({
  name: 'wallet',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000],
  build: () => ({ routes: notImplementedRoutes(walletRoutes) }),
});
