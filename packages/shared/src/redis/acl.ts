import { SERVICE_NAMES } from '@market/contracts';

/** Every process with a Redis user of its own: the services and the gateway (ADR 0054). */
export const REDIS_PROCESSES = [...SERVICE_NAMES, 'gateway'] as const;
export type RedisProcess = (typeof REDIS_PROCESSES)[number];

/** A Redis glob matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * The keys the gateway trusts (ADR 0007, 0033, 0034): which sessions are revoked, which subjects
 * blocked, which admin sessions open and with which roles. Each is written by the one service that
 * owns that fact and read by the gateway (and notify, which ends live streams).
 */
const TRUSTED_KEYS = {
  identity: ['auth:revoked:user:*', 'auth:blocked:user:*'],
  admin: ['auth:revoked:admin:*', 'auth:blocked:admin:*', 'auth:session:admin:*', 'auth:roles:admin:*'],
} as const;

/**
 * Which users are blocked (frozen), read by orders too: a create checks the renter's freeze where
 * the gateway does, without asking identity (ADR 0078).
 */
const USER_BLOCKS = 'auth:blocked:user:*';

/**
 * The channel catalog announces on, after every commit, that what an anonymous caller sees of the
 * listings may have changed; the gateways listen and drop catalog's answers they keep (ADR 0068).
 */
export const LISTING_CHANGES_CHANNEL = 'catalog:listing-changes';

/** Who speaks on which channel: the revocations (ADR 0034) and catalog's listing changes. */
function channelRules(process: RedisProcess, p: string): string[] {
  const rules = ['identity', 'admin', 'notify'].includes(process) ? [`&${p}auth:revocations`] : [];
  if (process === 'catalog' || process === 'gateway') rules.push(`&${p}${LISTING_CHANGES_CHANNEL}`);
  return rules;
}

/**
 * What one process's Redis user may do, as `ACL SETUSER` rules after the user's name and password:
 * read and write its own namespace (`<prefix><process>:*`; the gateway's rate limits are `<prefix>rl:*`),
 * write the trusted keys only where it owns them, read them where it checks them (orders: the user blocks), publish or
 * subscribe the revocation channel and catalog's listing changes as its part is, and every command
 * but the dangerous and administrative ones (FLUSHALL, KEYS, CONFIG, ACL, DEBUG, MONITOR…).
 */
export function redisAclRules(process: RedisProcess, prefix: string): string[] {
  const p = literal(prefix);
  const own = process === 'gateway' ? [`~${p}rl:*`] : [`~${p}${process}:*`];
  const writes = process === 'identity' || process === 'admin' ? TRUSTED_KEYS[process].map((k) => `~${p}${k}`) : [];
  const reads = process === 'gateway' || process === 'notify' ? [`%R~${p}auth:*`] : process === 'orders' ? [`%R~${p}${USER_BLOCKS}`] : [];
  // a channel rule allows publishing as well as subscribing: the gateway, which only listens, may not
  // publish at all, or it could announce changes in catalog's name
  const listensOnly = process === 'gateway' ? ['-publish', '-spublish'] : [];
  return [...own, ...writes, ...reads, ...channelRules(process, p), '+@all', '-@dangerous', '-@admin', ...listensOnly];
}

/** A process's Redis user: `<userPrefix><process>` (`market_identity`, `market_gateway`). */
export function redisUserOf(process: RedisProcess, userPrefix = 'market_'): string {
  return `${userPrefix}${process}`;
}

/** A Redis URL logged in as `user`. */
export function redisUrlAs(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString();
}
