import type { SealedColumn } from '@market/shared/crypto';
import type { Queryable, Tx } from '@market/shared/db';
import type { DecidedState, RealnameState } from '../domain/realname';

export const REAL_NAME_SEALED: SealedColumn = { table: 'realname_verifications', column: 'real_name_sealed', idColumn: 'user_id' };
export const ID_NUMBER_SEALED: SealedColumn = { table: 'realname_verifications', column: 'id_number_sealed', idColumn: 'user_id' };
/** Every sealed column identity stores, for the start-up step that binds old values to their rows. */
export const IDENTITY_SEALED_COLUMNS = [REAL_NAME_SEALED, ID_NUMBER_SEALED];

export interface RealnameRow {
  user_id: string;
  status: DecidedState;
  real_name_sealed: string;
  id_number_sealed: string;
  verified_at: Date | null;
}

export async function findRealname(db: Queryable, userId: string): Promise<RealnameRow | undefined> {
  const rows: RealnameRow[] = await db.query(
    `SELECT user_id, status, real_name_sealed, id_number_sealed, verified_at FROM realname_verifications WHERE user_id = $1`,
    [userId],
  );
  return rows[0];
}

/**
 * Records an attempt's outcome only while the user is still in a state an attempt may start from
 * (`startable`; no row is `unverified`): a verified identity is never overwritten.
 */
export async function recordRealnameOutcome(
  tx: Tx,
  userId: string,
  startable: RealnameState[],
  outcome: { status: RealnameRow['status']; real_name_sealed: string; id_number_sealed: string },
): Promise<RealnameRow | undefined> {
  const rows: RealnameRow[] = await tx.query(
    `INSERT INTO realname_verifications (user_id, status, real_name_sealed, id_number_sealed, verified_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $2::text = 'verified' THEN now() END)
     ON CONFLICT (user_id) DO UPDATE SET
       status = EXCLUDED.status, real_name_sealed = EXCLUDED.real_name_sealed,
       id_number_sealed = EXCLUDED.id_number_sealed, verified_at = EXCLUDED.verified_at, updated_at = now()
     WHERE realname_verifications.status = ANY($5::text[])
     RETURNING user_id, status, real_name_sealed, id_number_sealed, verified_at`,
    [userId, outcome.status, outcome.real_name_sealed, outcome.id_number_sealed, startable],
  );
  return rows[0];
}
