import { CreateOutboxAndInbox1763800000000, defineService, idempotencyMigrations, notImplementedRoutes, walletRoutes } from '@market/shared';

export const walletService = defineService({
  name: 'wallet',
  env: {},
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, ...idempotencyMigrations],
  build: () => ({ routes: notImplementedRoutes(walletRoutes) }),
});
