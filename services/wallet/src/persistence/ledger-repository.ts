import { v7 as uuidv7 } from 'uuid';
import type { Queryable, Tx } from '@market/shared/db';
import type { RowsStatement } from '@market/shared/events';
import type { AccountRef } from '../domain/accounts';
import { postTransfers, type Transfer } from '../domain/ledger';
import { columnArrays } from './column-arrays';
import { chainEntries } from './ledger-chain';

/**
 * Transfers planned on their locked accounts: every transfer, its two entries and the accounts' new
 * balances and chain heads, as the parameters of the common table expressions that write them
 * (`ctes`), so they are written in one statement, alone (`recordTransfers`) or beside the change
 * they pay for (`withLedgerWrite`).
 */
export interface LedgerWrite {
  params: unknown[];
  /**
   * The writes, their parameters numbered after the first `offset`; with `guarded`, each writes
   * only when the statement's `changed` answers a row.
   */
  ctes(offset: number, guarded: boolean): string;
}

/**
 * Plans transfers in the caller's transaction: creates missing accounts and locks every account
 * involved in key order, in one statement (so two transfers over the same accounts queue instead
 * of deadlocking), and posts the transfers on the balances read under that lock. Refusals
 * (InsufficientFunds) are thrown here, before anything is written. Each entry is linked into its
 * account's hash chain from the head read with the lock, and the new head is written with the
 * balance (ADR 0067): no statement more. Null when there is nothing to write.
 */
export async function planTransfers(tx: Tx, transfers: Transfer[], at = new Date()): Promise<LedgerWrite | null> {
  if (transfers.length === 0) return null;
  const accounts = new Map<string, AccountRef>();
  for (const t of transfers) {
    accounts.set(t.from.key, t.from);
    accounts.set(t.to.key, t.to);
  }
  const refs = [...accounts.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // Created if missing and locked in one statement: the conflicting rows are taken in key order, as
  // Postgres inserts the rows of an INSERT … SELECT in the order it sorted them, and an upsert reads
  // the latest committed balance and head under the lock, not the statement's snapshot.
  const locked: Array<{ key: string; balance: string; head_hash: string }> = await tx.query(
    `INSERT INTO accounts (key, kind, owner_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[]) AS a(key, kind, owner_id) ORDER BY key
     ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
     RETURNING key, balance, head_hash`,
    [refs.map((a) => a.key), refs.map((a) => a.kind), refs.map((a) => a.ownerId)],
  );
  const balances = new Map(locked.map((row) => [row.key, Number(row.balance)]));
  const postings = postTransfers(balances, transfers);

  const transferIds = transfers.map(() => uuidv7());
  const entries = postings.map((p) => ({
    id: uuidv7(),
    transfer_id: transferIds[p.transferIndex]!,
    account_key: p.account.key,
    user_id: p.account.kind === 'user_available' ? p.account.ownerId : null,
    order_id: transfers[p.transferIndex]!.orderId,
    biz_type: transfers[p.transferIndex]!.bizType,
    amount: p.amount,
    balance_after: p.balanceAfter,
    created_at: at,
  }));
  const heads = new Map(locked.map((row) => [row.key, row.head_hash]));
  const links = chainEntries(heads, entries);
  const finalBalance = new Map<string, number>();
  for (const p of postings) finalBalance.set(p.account.key, p.balanceAfter);
  return {
    params: [
      transferIds,
      transfers.map((t) => t.from.key),
      transfers.map((t) => t.to.key),
      ...columnArrays(transfers, ['amount', 'bizType', 'orderId', 'paymentId']),
      at,
      transfers.map((t) => t.withdrawalId ?? null),
      transfers.map((t) => t.refundId ?? null),
      ...columnArrays(entries, ['id', 'transfer_id', 'account_key', 'user_id', 'order_id', 'biz_type', 'amount', 'balance_after']),
      links.map((l) => l.prevHash),
      links.map((l) => l.hash),
      [...finalBalance.keys()],
      [...finalBalance.values()],
      [...finalBalance.keys()].map((key) => heads.get(key)!),
    ],
    ctes: (offset, guarded) => ledgerCtes((i) => `$${offset + i}`, guarded),
  };
}

/**
 * The transfers, their entries and the new balances (ADR 0077): the parts of one statement see one
 * snapshot and none reads another's rows; the foreign keys are checked at the statement's end.
 */
function ledgerCtes($: (i: number) => string, guarded: boolean): string {
  const when = guarded ? 'WHERE EXISTS (SELECT 1 FROM changed)' : '';
  return `written_transfers AS (
       INSERT INTO transfers (id, from_account, to_account, amount, biz_type, order_id, payment_id, withdrawal_id, refund_id, created_at)
       SELECT id, f, t, amount, biz, order_id, payment_id, withdrawal_id, refund_id, ${$(8)}
       FROM unnest(${$(1)}::uuid[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::bigint[], ${$(5)}::text[], ${$(6)}::uuid[], ${$(7)}::uuid[], ${$(9)}::uuid[], ${$(10)}::uuid[])
         AS x(id, f, t, amount, biz, order_id, payment_id, withdrawal_id, refund_id)
       ${when}
     ), written_entries AS (
       INSERT INTO entries (id, transfer_id, account_key, user_id, order_id, biz_type, amount, balance_after, created_at, prev_hash, hash)
       SELECT id, transfer_id, account_key, user_id, order_id, biz, amount, balance_after, ${$(8)}, prev_hash, hash
       FROM unnest(${$(11)}::uuid[], ${$(12)}::uuid[], ${$(13)}::text[], ${$(14)}::uuid[], ${$(15)}::uuid[], ${$(16)}::text[], ${$(17)}::bigint[], ${$(18)}::bigint[], ${$(19)}::text[], ${$(20)}::text[])
         WITH ORDINALITY AS x(id, transfer_id, account_key, user_id, order_id, biz, amount, balance_after, prev_hash, hash, n)
       ${when}
       ORDER BY n
     ), written_balances AS (
       UPDATE accounts a SET balance = x.balance, head_hash = x.head_hash
       FROM unnest(${$(21)}::text[], ${$(22)}::bigint[], ${$(23)}::text[]) AS x(key, balance, head_hash)
       WHERE a.key = x.key ${guarded ? 'AND EXISTS (SELECT 1 FROM changed)' : ''}
     )`;
}

/** Writes planned transfers in the caller's transaction, in one statement of their own. */
export async function writeLedger(tx: Tx, write: LedgerWrite | null): Promise<void> {
  if (write) await tx.query(`WITH ${write.ctes(0, false)} SELECT 1`, write.params);
}

/** Writes transfers in the caller's transaction: planned (`planTransfers`, which refuses), then written in one statement. */
export async function recordTransfers(tx: Tx, transfers: Transfer[], at = new Date()): Promise<void> {
  await writeLedger(tx, await planTransfers(tx, transfers, at));
}

/**
 * `change` with the ledger write in the same statement (ADR 0084): the money moves only when the
 * change answers a row, so a change that finds nothing to do moves none.
 */
export function withLedgerWrite(change: RowsStatement, write: LedgerWrite | null): RowsStatement {
  if (!write) return change;
  const ledger = write.ctes(change.params.length, true);
  return {
    text: change.text,
    params: [...change.params, ...write.params],
    alongside: change.alongside ? `${change.alongside}, ${ledger}` : ledger,
  };
}

export async function balanceOf(db: Queryable, key: string): Promise<number> {
  const rows: Array<{ balance: string }> = await db.query(`SELECT balance FROM accounts WHERE key = $1`, [key]);
  return rows[0] ? Number(rows[0].balance) : 0;
}
