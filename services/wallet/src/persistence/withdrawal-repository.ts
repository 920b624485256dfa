import type { SealedColumn } from '@market/shared/crypto';
import { updateReturning, type KeysetPageResult, type Queryable, type Tx } from '@market/shared/db';
import type { WithdrawalState } from '../domain/withdrawal';
import { claimBatch } from './claim-batch';
import { filteredPage, type PageRequest } from './filtered-page';
import { updateInState } from './update-in-state';

/** The payee's account and real name, sealed bound to their withdrawal; only their masked forms are kept in clear. */
export const PAYEE_ACCOUNT_SEALED: SealedColumn = { table: 'withdrawals', column: 'payee_account_sealed', idColumn: 'id' };
export const PAYEE_NAME_SEALED: SealedColumn = { table: 'withdrawals', column: 'payee_name_sealed', idColumn: 'id' };

export interface WithdrawalRow {
  id: string;
  user_id: string;
  amount: string;
  channel: 'alipay' | 'wechatpay';
  payee_account_sealed: string;
  payee_name_sealed: string;
  payee_account_masked: string;
  payee_name_masked: string;
  status: WithdrawalState;
  reason: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  sent_at: Date | null;
  next_check_at: Date | null;
  provider_order_id: string | null;
  paid_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  /** WeChat's `package_info` while the payee must confirm the receipt */
  payee_confirmation: string | null;
  /** when the back office was told the transfer's outcome stayed unknown too long */
  unknown_alerted_at: Date | null;
}

const COLUMNS =
  'id, user_id, amount, channel, payee_account_sealed, payee_name_sealed, payee_account_masked, payee_name_masked, status, reason, decided_by, decided_at, sent_at, next_check_at, provider_order_id, paid_at, finished_at, created_at, payee_confirmation, unknown_alerted_at';

export async function insertWithdrawal(
  tx: Tx,
  row: Pick<
    WithdrawalRow,
    'id' | 'user_id' | 'channel' | 'payee_account_sealed' | 'payee_name_sealed' | 'payee_account_masked' | 'payee_name_masked' | 'created_at'
  > & { amount: number },
): Promise<WithdrawalRow> {
  const [inserted]: WithdrawalRow[] = await tx.query(
    `INSERT INTO withdrawals (id, user_id, amount, channel, payee_account_sealed, payee_name_sealed, payee_account_masked, payee_name_masked, status, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending_review', $9) RETURNING ${COLUMNS}`,
    [
      row.id,
      row.user_id,
      row.amount,
      row.channel,
      row.payee_account_sealed,
      row.payee_name_sealed,
      row.payee_account_masked,
      row.payee_name_masked,
      row.created_at,
    ],
  );
  return inserted!;
}

export async function findWithdrawal(db: Queryable, id: string, lock = false): Promise<WithdrawalRow | null> {
  const rows: WithdrawalRow[] = await db.query(`SELECT ${COLUMNS} FROM withdrawals WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** What the user asked to withdraw since `since`, counting every request that was not given back. */
export async function requestedSince(tx: Tx, userId: string, since: Date): Promise<number> {
  const [row]: Array<{ total: string }> = await tx.query(
    `SELECT COALESCE(SUM(amount), 0)::text AS total FROM withdrawals
     WHERE user_id = $1 AND created_at >= $2 AND status NOT IN ('rejected', 'cancelled', 'failed')`,
    [userId, since],
  );
  return Number(row!.total);
}

export type WithdrawalChange = Partial<
  Pick<
    WithdrawalRow,
    'status' | 'reason' | 'decided_by' | 'decided_at' | 'sent_at' | 'next_check_at' | 'provider_order_id' | 'paid_at' | 'finished_at' | 'payee_confirmation' | 'unknown_alerted_at'
  >
>;

/** Writes `change` to a withdrawal the caller holds locked in `from`. */
export function updateWithdrawal(tx: Tx, id: string, from: WithdrawalState, change: WithdrawalChange): Promise<WithdrawalRow> {
  return updateInState<WithdrawalRow, WithdrawalState>(tx, { table: 'withdrawals', noun: 'withdrawal', columns: COLUMNS }, id, from, change);
}

/**
 * Claims up to `limit` withdrawals whose next look is due (being sent, or paid and waiting for the
 * look for a return), pushing that look `leaseMs` ahead: replicas skip each other's rows (SKIP
 * LOCKED), and no lock is held while the provider is asked.
 */
export function claimDueWithdrawals(db: Queryable, now: Date, leaseMs: number, limit: number): Promise<string[]> {
  const claim = { set: 'next_check_at = $2', where: `status IN ('processing', 'paid') AND next_check_at <= $1`, orderBy: 'next_check_at' };
  return claimBatch(db, 'withdrawals', claim, [now, new Date(now.getTime() + leaseMs)], limit);
}

export interface WithdrawalQuery extends PageRequest {
  userId?: string;
  status?: WithdrawalState;
  channel?: string;
}

export function queryWithdrawals(db: Queryable, q: WithdrawalQuery): Promise<KeysetPageResult<WithdrawalRow>> {
  return filteredPage<WithdrawalRow>(db, `SELECT ${COLUMNS} FROM withdrawals`, { user_id: q.userId, status: q.status, channel: q.channel }, q);
}

/** Takes one withdrawal being sent whose next look is due, pushing that look `leaseMs` ahead; null when it is not due or not being sent. */
export async function claimWithdrawal(db: Queryable, id: string, now: Date, leaseMs: number): Promise<WithdrawalRow | null> {
  const [row] = await updateReturning<WithdrawalRow>(
    db,
    `UPDATE withdrawals SET next_check_at = $3 WHERE id = $1 AND status = 'processing' AND next_check_at <= $2 RETURNING ${COLUMNS}`,
    [id, now, new Date(now.getTime() + leaseMs)],
  );
  return row ?? null;
}

/** Makes a withdrawal being sent due for a look now (its provider has news of it); false when it is not being sent. */
export async function makeDueNow(db: Queryable, id: string, now: Date): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(
    db,
    `UPDATE withdrawals SET next_check_at = LEAST(next_check_at, $2) WHERE id = $1 AND status = 'processing' RETURNING id`,
    [id, now],
  );
  return rows.length === 1;
}

/** Records that the transfer is being asked for; true only for the one caller that recorded it first. */
export async function markSent(db: Queryable, id: string, now: Date): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(db, `UPDATE withdrawals SET sent_at = $2 WHERE id = $1 AND sent_at IS NULL RETURNING id`, [id, now]);
  return rows.length === 1;
}
