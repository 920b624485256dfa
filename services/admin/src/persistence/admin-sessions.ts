import { updateReturning, type Queryable } from '@market/shared/db';

/**
 * Opens a session only while the admin is still active and still has the password that was
 * verified; false otherwise. `FOR SHARE` makes it wait for a disable or a password change in
 * progress, so a login racing one of them cannot end up with a session that change did not end.
 */
export async function insertAdminSession(
  db: Queryable,
  session: { id: string; adminId: string; ip: string | null; verifiedHash: string },
): Promise<boolean> {
  const rows: Array<{ id: string }> = await db.query(
    `WITH admin AS (
       SELECT id FROM admin_users WHERE id = $2 AND status = 'active' AND password_hash = $4 FOR SHARE
     )
     INSERT INTO admin_sessions (id, admin_id, ip) SELECT $1, id, $3 FROM admin RETURNING id`,
    [session.id, session.adminId, session.ip, session.verifiedHash],
  );
  return rows.length > 0;
}

/** True when this call ended the session; a second logout of the same session changes nothing. */
export async function revokeAdminSession(db: Queryable, id: string, adminId: string): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(
    db,
    `UPDATE admin_sessions SET revoked_at = now() WHERE id = $1 AND admin_id = $2 AND revoked_at IS NULL RETURNING id`,
    [id, adminId],
  );
  return rows.length > 0;
}

/** Ends every live session of the admin but `keepSessionId`; answers the ended ones. */
export async function revokeLiveSessionsOf(
  db: Queryable,
  adminId: string,
  keepSessionId: string | null,
): Promise<Array<{ id: string; created_at: Date }>> {
  return updateReturning(
    db,
    `UPDATE admin_sessions SET revoked_at = now()
     WHERE admin_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2::uuid)
     RETURNING id, created_at`,
    [adminId, keepSessionId],
  );
}

/** Sessions that may still hold a live token: not ended and younger than the token lifetime. */
export async function findLiveSessions(db: Queryable, ttlSeconds: number): Promise<Array<{ id: string; admin_id: string; created_at: Date }>> {
  return db.query(
    `SELECT id, admin_id, created_at FROM admin_sessions
     WHERE revoked_at IS NULL AND created_at > now() - make_interval(secs => $1)`,
    [ttlSeconds],
  );
}
