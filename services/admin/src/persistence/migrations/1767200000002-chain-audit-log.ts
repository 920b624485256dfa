import { GENESIS_HASH } from '@market/shared/crypto';
import type { Migration, Queryable } from '@market/shared/db';
import { auditEntryHash, type ChainedAuditEntry } from '../audit-chain';

const BATCH = 2000;

/**
 * The audit log becomes one hash chain per producer (ADR 0067): the entries already stored are
 * chained producer by producer in the order they happened (time, then id), each chain's head is
 * kept in `audit_chains`, and no two entries of a chain may share a position or a previous hash.
 */
export class ChainAuditLog1767200000002 implements Migration {
  name = 'ChainAuditLog1767200000002';

  async up(q: Queryable) {
    await q.query(`CREATE TABLE audit_chains (chain text PRIMARY KEY, seq bigint NOT NULL, head_hash text NOT NULL)`);
    await q.query(`ALTER TABLE audit_logs ADD COLUMN chain_seq bigint, ADD COLUMN prev_hash text, ADD COLUMN hash text`);
    // the hash covers the time to the millisecond: older rows may hold microseconds
    await q.query(`UPDATE audit_logs SET created_at = date_trunc('milliseconds', created_at) WHERE created_at <> date_trunc('milliseconds', created_at)`);
    const heads = new Map<string, { seq: bigint; hash: string }>();
    let after: { producer: string; created_at: Date; id: string } | null = null;
    for (;;) {
      const rows: Array<ChainedAuditEntry> = await q.query(
        `SELECT id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, producer, created_at FROM audit_logs
         ${after ? 'WHERE (producer, created_at, id) > ($1, $2, $3)' : ''} ORDER BY producer, created_at, id LIMIT ${BATCH}`,
        after ? [after.producer, after.created_at, after.id] : [],
      );
      if (rows.length === 0) break;
      const links = rows.map((row) => {
        const head = heads.get(row.producer) ?? { seq: 0n, hash: GENESIS_HASH };
        const next = { seq: head.seq + 1n, hash: auditEntryHash(head.hash, row) };
        heads.set(row.producer, next);
        return { id: row.id, seq: next.seq.toString(), prevHash: head.hash, hash: next.hash };
      });
      await q.query(
        `UPDATE audit_logs a SET chain_seq = x.seq, prev_hash = x.prev_hash, hash = x.hash
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[]) AS x(id, seq, prev_hash, hash) WHERE a.id = x.id`,
        [links.map((l) => l.id), links.map((l) => l.seq), links.map((l) => l.prevHash), links.map((l) => l.hash)],
      );
      const last = rows[rows.length - 1]!;
      after = { producer: last.producer, created_at: last.created_at, id: last.id };
    }
    await q.query(
      `INSERT INTO audit_chains (chain, seq, head_hash) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])`,
      [[...heads.keys()], [...heads.values()].map((h) => h.seq.toString()), [...heads.values()].map((h) => h.hash)],
    );
    await q.query(`ALTER TABLE audit_logs ALTER COLUMN chain_seq SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX audit_logs_chain_position ON audit_logs (producer, chain_seq)`);
    await q.query(`CREATE UNIQUE INDEX audit_logs_chain_link ON audit_logs (producer, prev_hash)`);
  }

  async down(q: Queryable) {
    await q.query(`ALTER TABLE audit_logs DROP COLUMN chain_seq, DROP COLUMN prev_hash, DROP COLUMN hash`);
    await q.query(`DROP TABLE audit_chains`);
  }
}
