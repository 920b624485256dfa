import { chainHash, findChainBreaks, HeadsDigest, type ChainBreak } from '@market/shared/crypto';
import type { Queryable } from '@market/shared/db';

/**
 * Each account's entries form one hash chain (ADR 0067): an entry's hash covers the previous
 * entry's hash and its own columns, and the account row keeps the newest hash (`head_hash`). The
 * chain is per account because the account row is already locked while its entries are written
 * (`recordTransfers`), so chaining adds neither a lock nor a statement to the money path.
 */

/** An entry's columns as written, or as read back (bigints as strings). */
export interface ChainedEntry {
  id: string;
  transfer_id: string;
  account_key: string;
  user_id: string | null;
  order_id: string | null;
  biz_type: string;
  amount: number | string;
  balance_after: number | string;
  created_at: Date;
}

/** The canonical content of an entry: every column but its row number and its hashes. */
function entryContent(entry: ChainedEntry) {
  return {
    id: entry.id,
    transfer_id: entry.transfer_id,
    account_key: entry.account_key,
    user_id: entry.user_id,
    order_id: entry.order_id,
    biz_type: entry.biz_type,
    amount: BigInt(entry.amount),
    balance_after: BigInt(entry.balance_after),
    created_at: entry.created_at,
  };
}

export function entryHash(previousHash: string, entry: ChainedEntry): string {
  return chainHash(previousHash, entryContent(entry));
}

/**
 * Links entries to their accounts' chains in the order given (the order they are written): each
 * entry's previous hash and hash; `heads` (account key → newest hash) moves along.
 */
export function chainEntries(heads: Map<string, string>, entries: ChainedEntry[]): Array<{ prevHash: string; hash: string }> {
  return entries.map((entry) => {
    const prevHash = heads.get(entry.account_key)!;
    const hash = entryHash(prevHash, entry);
    heads.set(entry.account_key, hash);
    return { prevHash, hash };
  });
}

const PAGE = 5000;

type StoredEntry = ChainedEntry & { seq: string; prev_hash: string; hash: string };

/**
 * Recomputes every account's chain, in entry order, and answers each account's first break (up to
 * `limit` accounts): an altered entry, an entry that does not follow the previous one (one removed,
 * or one inserted), or an account whose head does not name its newest entry (the newest removed).
 * Reads page by page, so it runs on a ledger of any size; `db` should be one snapshot.
 */
export async function findLedgerChainBreaks(db: Queryable, limit = 50): Promise<ChainBreak[]> {
  const accounts: Array<{ key: string; head_hash: string }> = await db.query(`SELECT key, head_hash FROM accounts`);
  const { breaks } = await findChainBreaks<StoredEntry>({
    heads: new Map(accounts.map((a) => [a.key, a.head_hash])),
    page: (after) =>
      db.query(
        `SELECT seq, id, transfer_id, account_key, user_id, order_id, biz_type, amount, balance_after, created_at, prev_hash, hash
         FROM entries ${after ? 'WHERE (account_key, seq) > ($1, $2::bigint)' : ''} ORDER BY account_key, seq LIMIT ${PAGE}`,
        after ? [after.account_key, after.seq] : [],
      ),
    pageSize: PAGE,
    chainOf: (row) => row.account_key,
    recordOf: (row) => ({ id: row.id, prevHash: row.prev_hash, hash: row.hash, content: entryContent(row) }),
  });
  return breaks.slice(0, limit);
}

/**
 * The hash over every account's head, in key order (the primary key's, so it pages on the index):
 * what the wallet logs daily as the ledger's anchor, with how many accounts it covers.
 */
export async function ledgerHeadsDigest(db: Queryable): Promise<{ accounts: number; heads_hash: string }> {
  const digest = new HeadsDigest();
  let accounts = 0;
  let after: string | null = null;
  for (;;) {
    const rows: Array<{ key: string; head_hash: string }> = await db.query(
      `SELECT key, head_hash FROM accounts ${after === null ? '' : 'WHERE key > $1'} ORDER BY key LIMIT ${PAGE}`,
      after === null ? [] : [after],
    );
    for (const row of rows) digest.add(row.key, row.head_hash);
    accounts += rows.length;
    if (rows.length < PAGE) return { accounts, heads_hash: digest.value };
    after = rows[rows.length - 1]!.key;
  }
}
