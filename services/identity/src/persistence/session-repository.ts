import { updateReturning, type Tx, type Queryable } from '@market/shared/db';
import { v7 as uuidv7 } from 'uuid';
import type { StoredRefreshToken } from '../domain/refresh-token';

export type RevokeReason = 'logout' | 'refresh_reuse' | 'frozen';

export interface RefreshTokenRow extends StoredRefreshToken {
  id: string;
  session_id: string;
  user_id: string;
}

/** A session is one refresh family: its id is the `sid` of every access token issued in it. */
export async function createSession(tx: Tx, userId: string): Promise<string> {
  const id = uuidv7();
  await tx.query(`INSERT INTO sessions (id, user_id) VALUES ($1, $2)`, [id, userId]);
  return id;
}

export async function insertRefreshToken(tx: Tx, sessionId: string, tokenHash: Buffer, expiresAt: Date) {
  await tx.query(
    `INSERT INTO refresh_tokens (id, session_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`,
    [uuidv7(), sessionId, tokenHash, expiresAt],
  );
}

/** Locks the token row: of two refreshes presenting it at once, the second sees it rotated. */
export async function findRefreshTokenForUpdate(tx: Tx, tokenHash: Buffer): Promise<RefreshTokenRow | undefined> {
  const rows: RefreshTokenRow[] = await tx.query(
    `SELECT t.id, t.session_id, s.user_id, t.expires_at, t.rotated_at, s.revoked_at AS session_revoked_at
     FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
     WHERE t.token_hash = $1 FOR UPDATE OF t`,
    [tokenHash],
  );
  return rows[0];
}

export async function findSessionOfRefreshToken(tx: Tx, tokenHash: Buffer) {
  const rows: Array<{ session_id: string; user_id: string }> = await tx.query(
    `SELECT s.id AS session_id, s.user_id FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

export async function markRotated(tx: Tx, tokenId: string) {
  await tx.query(`UPDATE refresh_tokens SET rotated_at = now() WHERE id = $1`, [tokenId]);
}

export async function revokeSession(tx: Tx, sessionId: string, userId: string, reason: RevokeReason) {
  await tx.query(
    `UPDATE sessions SET revoked_at = now(), revoked_reason = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
    [sessionId, userId, reason],
  );
}

/** Returns the ids of the sessions it ended, so their access tokens can be revoked too. */
export async function revokeLiveSessionsOf(tx: Tx, userId: string, reason: RevokeReason): Promise<string[]> {
  const rows = await updateReturning<{ id: string }>(
    tx,
    `UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`,
    [userId, reason],
  );
  return rows.map((r) => r.id);
}

/**
 * Sessions ended less than `withinSeconds` ago (an access token's lifetime), with how many seconds
 * of that lifetime are left (at least 1: the filter keeps only what is left, rounded up): their
 * access tokens may still be live for that long.
 */
export async function recentlyRevokedSessions(tx: Tx, withinSeconds: number): Promise<Array<{ sid: string; ttlSeconds: number }>> {
  const rows: Array<{ sid: string; ttl_seconds: number }> = await tx.query(
    `SELECT id AS sid, ceil(extract(epoch FROM revoked_at + make_interval(secs => $1) - now()))::int AS ttl_seconds
       FROM sessions WHERE revoked_at > now() - make_interval(secs => $1)`,
    [withinSeconds],
  );
  return rows.map((r) => ({ sid: r.sid, ttlSeconds: r.ttl_seconds }));
}

/**
 * Refresh tokens a day past their expiry can never be used again; dropping them keeps the table to
 * live tokens (a rotated one presented later is refused as expired, before reuse detection matters).
 */
export async function purgeExpiredRefreshTokens(db: Queryable): Promise<number> {
  const removed = await updateReturning(db, `DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day' RETURNING id`, []);
  return removed.length;
}
