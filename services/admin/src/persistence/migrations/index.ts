import { CreateOutboxAndInbox1763800000000 } from '@market/shared/events';
import { CreateAdminTables1763900000000 } from './1763900000000-create-admin-tables';
import { SeedRequireRealname1764000000000 } from './1764000000000-seed-require-realname';
import { CountLoginFailuresPerUsername1764100000000 } from './1764100000000-count-login-failures-per-username';
import { SeedWithdrawalLimits1765400000002 } from './1765400000002-seed-withdrawal-limits';

export const adminMigrations = [
  CreateOutboxAndInbox1763800000000,
  CreateAdminTables1763900000000,
  SeedRequireRealname1764000000000,
  CountLoginFailuresPerUsername1764100000000,
  SeedWithdrawalLimits1765400000002,
];
