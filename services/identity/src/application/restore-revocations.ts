import type { Revocations } from '@market/shared/auth';
import type { Db } from '@market/shared/db';
import type { RedisClient } from '@market/shared/redis';
import { recentlyRevokedSessions } from '../persistence/session-repository';
import { lockFrozenUserIds } from '../persistence/user-repository';

export interface RevocationsDeps {
  db: Db;
  redis: RedisClient;
  revocations: Revocations;
  /** the key written with the revocations: while Redis holds it, it holds them */
  marker: string;
  /** the longest an access token lives: a session ended longer ago than this has no live token left */
  accessTokenTtlSeconds: number;
}

/**
 * Writes the users' revocations into Redis again once Redis has lost them (a restart without
 * persistence, a failover to a replica that had not caught up): the frozen users' blocks, and the
 * sessions ended (logout, refresh-token reuse, a freeze) within an access token's lifetime, each for
 * what is left of that lifetime. The gateway and orders read both there on every request (ADR 0078);
 * without them a frozen or logged-out user's access token would work again until it expired. While
 * Redis keeps its data this is one read of the marker.
 *
 * The frozen users are read FOR SHARE in the transaction the revocations are written in, so an
 * unfreeze, which lifts its block inside its own transaction, never has its lift overwritten: it
 * committed before the read (its user is not read), or it waits until the blocks are written. A
 * session's end is never lifted, so nothing can overwrite it.
 *
 * Answers how many blocks and sessions were written, or null when Redis still held them.
 */
export async function restoreRevocations(deps: RevocationsDeps): Promise<{ blocks: number; sessions: number } | null> {
  if ((await deps.redis.exists(deps.marker)) === 1) return null;
  return deps.db.transaction(async (tx) => {
    const frozen = await lockFrozenUserIds(tx);
    const ended = await recentlyRevokedSessions(tx, deps.accessTokenTtlSeconds);
    await deps.revocations.restore('user', { blocked: frozen, revokedSessions: ended }, deps.marker);
    return { blocks: frozen.length, sessions: ended.length };
  });
}
