import { CreateIdempotencyKeys1763800000001, CreateOutboxAndInbox1763800000000, defineService, notImplementedRoutes, walletRoutes } from '@market/shared';

export const walletService = defineService({
  name: 'wallet',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, CreateIdempotencyKeys1763800000001],
  build: () => ({ routes: notImplementedRoutes(walletRoutes) }),
});
