import { GENESIS_HASH } from '@market/shared/crypto';
import type { Migration, Queryable } from '@market/shared/db';
import { chainEntries, type ChainedEntry } from '../ledger-chain';

const BATCH = 2000;

/**
 * Each account's entries become a hash chain (ADR 0067): the chain is computed over the entries
 * already written, account by account in the order they were written, and every account's head is
 * its newest entry's hash; a new account starts at the genesis hash (the default). Writers wait on the ALTERs' locks until the chain is complete.
 */
export class ChainLedgerEntries1767200000001 implements Migration {
  name = 'ChainLedgerEntries1767200000001';

  async up(q: Queryable) {
    await q.query(`ALTER TABLE accounts ADD COLUMN head_hash text NOT NULL DEFAULT '${GENESIS_HASH}'`);
    await q.query(`ALTER TABLE entries ADD COLUMN prev_hash text, ADD COLUMN hash text`);
    const heads = new Map<string, string>();
    let after: { key: string; seq: string } | null = null;
    for (;;) {
      const rows: Array<ChainedEntry & { seq: string }> = await q.query(
        `SELECT seq, id, transfer_id, account_key, user_id, order_id, biz_type, amount, balance_after, created_at
         FROM entries ${after ? 'WHERE (account_key, seq) > ($1, $2::bigint)' : ''} ORDER BY account_key, seq LIMIT ${BATCH}`,
        after ? [after.key, after.seq] : [],
      );
      if (rows.length === 0) break;
      for (const row of rows) if (!heads.has(row.account_key)) heads.set(row.account_key, GENESIS_HASH);
      const links = chainEntries(heads, rows);
      await q.query(
        `UPDATE entries e SET prev_hash = x.prev_hash, hash = x.hash
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS x(seq, prev_hash, hash) WHERE e.seq = x.seq`,
        [rows.map((r) => r.seq), links.map((l) => l.prevHash), links.map((l) => l.hash)],
      );
      const last = rows[rows.length - 1]!;
      after = { key: last.account_key, seq: last.seq };
    }
    await q.query(
      `UPDATE accounts a SET head_hash = x.head_hash FROM unnest($1::text[], $2::text[]) AS x(key, head_hash) WHERE a.key = x.key`,
      [[...heads.keys()], [...heads.values()]],
    );
    await q.query(`ALTER TABLE entries ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`);
  }

  async down(q: Queryable) {
    await q.query(`ALTER TABLE entries DROP COLUMN prev_hash, DROP COLUMN hash`);
    await q.query(`ALTER TABLE accounts DROP COLUMN head_hash`);
  }
}
