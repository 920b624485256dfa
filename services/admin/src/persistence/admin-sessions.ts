import { updateReturning, type Queryable } from '@market/shared';

export async function insertAdminSession(q: Queryable, session: { id: string; adminId: string; ip: string | null }) {
  await q.query(`INSERT INTO admin_sessions (id, admin_id, ip) VALUES ($1, $2, $3)`, [session.id, session.adminId, session.ip]);
}

/** True when this call ended the session; a second logout of the same session changes nothing. */
export async function revokeAdminSession(q: Queryable, id: string, adminId: string): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(
    q,
    `UPDATE admin_sessions SET revoked_at = now() WHERE id = $1 AND admin_id = $2 AND revoked_at IS NULL RETURNING id`,
    [id, adminId],
  );
  return rows.length > 0;
}
