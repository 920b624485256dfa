import { CreateOutboxAndInbox1763800000000 } from '@market/shared/events';
import { CreateAdminTables1763900000000 } from './1763900000000-create-admin-tables';
import { SeedRequireRealname1764000000000 } from './1764000000000-seed-require-realname';
import { CountLoginFailuresPerUsername1764100000000 } from './1764100000000-count-login-failures-per-username';
import { SeedOverdueTimeouts1765200000002 } from './1765200000002-seed-overdue-timeouts';
import { SeedWithdrawalLimits1765400000002 } from './1765400000002-seed-withdrawal-limits';
import { AdminRoles1765500000001 } from './1765500000001-admin-roles';
import { ThrottleLoginsPerAddress1765500000002 } from './1765500000002-throttle-logins-per-address';
import { RememberMoneyMismatches1765900000001 } from './1765900000001-remember-money-mismatches';
import { KeepMoneyCheckResults1766300000002 } from './1766300000002-keep-money-check-results';
import { SeedRenewalAndRenterLimits1767000000004 } from './1767000000004-seed-renewal-and-renter-limits';
import { SeedRatingWindow1767100000002 } from './1767100000002-seed-rating-window';
import { ChainAuditLog1767200000002 } from './1767200000002-chain-audit-log';
import { SeedGraceMinutes1767300000001 } from './1767300000001-seed-grace-minutes';

export const adminMigrations = [
  CreateOutboxAndInbox1763800000000,
  CreateAdminTables1763900000000,
  SeedRequireRealname1764000000000,
  CountLoginFailuresPerUsername1764100000000,
  SeedOverdueTimeouts1765200000002,
  SeedWithdrawalLimits1765400000002,
  AdminRoles1765500000001,
  ThrottleLoginsPerAddress1765500000002,
  RememberMoneyMismatches1765900000001,
  KeepMoneyCheckResults1766300000002,
  SeedRenewalAndRenterLimits1767000000004,
  SeedRatingWindow1767100000002,
  ChainAuditLog1767200000002,
  SeedGraceMinutes1767300000001,
];
