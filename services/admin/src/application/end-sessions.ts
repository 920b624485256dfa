import type { Tx } from '@market/shared/db';
import { revokeLiveSessionsOf } from '../persistence/admin-sessions';
import type { AdminDeps } from './deps';

/**
 * Ends the admin's live sessions (all but `keepSessionId`) and makes the gateway refuse their
 * tokens on the very next request. Sessions older than the token lifetime hold no live token, so
 * they need no Redis entry. Runs inside the caller's transaction, Redis last: a Redis failure rolls
 * the change back instead of leaving live tokens behind.
 */
export async function endSessionsOf(
  deps: Pick<AdminDeps, 'revocations' | 'config'>,
  tx: Tx,
  adminId: string,
  keepSessionId: string | null,
): Promise<number> {
  const ended = await revokeLiveSessionsOf(tx, adminId, keepSessionId);
  const ttlSeconds = deps.config.ADMIN_TOKEN_TTL_SECONDS;
  const oldestLive = Date.now() - ttlSeconds * 1000;
  await Promise.all(
    ended
      .filter((session) => session.created_at.getTime() >= oldestLive)
      .map((session) => deps.revocations.revokeSession('admin', session.id, ttlSeconds)),
  );
  return ended.length;
}
