import { GENESIS_HASH } from '@market/shared/crypto';
import { keysetPage, NEWEST_FIRST, type KeysetPageResult, type Queryable, type Tx } from '@market/shared/db';
import { auditEntryHash, type StoredAuditEntry } from './audit-chain';

export interface AuditLogRow {
  id: string;
  actor_type: 'admin' | 'user' | 'system';
  actor_id: string | null;
  action: string;
  biz_type: string;
  biz_id: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  result: 'success' | 'failure';
  request_id: string | null;
  created_at: Date;
}

export type NewAuditLog = Omit<AuditLogRow, 'created_at'> & { producer: string; created_at: string };

/** Every column of an audit row as written, with its type: the insert takes one array per column. */
const WRITTEN_COLUMNS = {
  id: 'uuid',
  actor_type: 'text',
  actor_id: 'text',
  action: 'text',
  biz_type: 'text',
  biz_id: 'text',
  detail: 'jsonb',
  ip: 'text',
  result: 'text',
  request_id: 'text',
  producer: 'text',
  created_at: 'timestamptz',
  chain_seq: 'bigint',
  prev_hash: 'text',
  hash: 'text',
} as const satisfies Record<keyof StoredAuditEntry, string>;

const WRITTEN = Object.keys(WRITTEN_COLUMNS) as Array<keyof StoredAuditEntry>;

/**
 * Writes the rows given as one array per column (`WRITTEN`'s order) and moves each chain's head to
 * its last row written. The same text for any number of rows, so it is prepared once per connection.
 */
const INSERT_LINKED = `WITH inserted AS (
    INSERT INTO audit_logs (${WRITTEN.join(', ')})
    SELECT * FROM unnest(${Object.values(WRITTEN_COLUMNS).map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
    RETURNING producer, chain_seq, hash
  )
  UPDATE audit_chains SET seq = last.chain_seq, head_hash = last.hash
  FROM (SELECT DISTINCT ON (producer) producer, chain_seq, hash FROM inserted ORDER BY producer, chain_seq DESC) AS last
  WHERE audit_chains.chain = last.producer`;

/** A chain's head as the transaction holding its row's lock read it, and which of the entries' ids are stored already (the same on every head). */
interface LockedHead {
  chain: string;
  seq: string;
  head_hash: string;
  stored: string[];
}

/**
 * Locks the head of every chain the entries join (created at a producer's first entry), in chain
 * order, bytewise as `auditChainHeads` reads them: two replicas' batches over the same producers
 * queue instead of locking two heads crosswise. Postgres upserts the rows of an INSERT … SELECT in
 * the order it sorted them, and the upsert answers each head as last committed, not as the
 * statement's snapshot saw it. The same statement names the entries' ids already stored (an event
 * republished after its inbox row went): those are not linked.
 */
async function lockHeads(tx: Tx, entries: readonly NewAuditLog[]): Promise<LockedHead[]> {
  return tx.query(
    `WITH head AS (
       INSERT INTO audit_chains (chain, seq, head_hash)
       SELECT chain, 0, $2 FROM unnest($1::text[]) AS c(chain) ORDER BY chain COLLATE "C"
       ON CONFLICT (chain) DO UPDATE SET chain = EXCLUDED.chain
       RETURNING chain, seq, head_hash
     )
     SELECT chain, seq, head_hash, ARRAY(SELECT id FROM audit_logs WHERE id = ANY($3::uuid[])) AS stored FROM head`,
    [[...new Set(entries.map((entry) => entry.producer))], GENESIS_HASH, entries.map((entry) => entry.id)],
  );
}

/**
 * Each entry not stored yet, linked to its producer's head as the entries before it moved it: seq
 * +1, the previous hash, its own. An id seen twice is linked once, at its first place.
 */
function linkEntries(heads: readonly LockedHead[], entries: readonly NewAuditLog[]): StoredAuditEntry[] {
  const skip = new Set(heads[0]?.stored);
  const links = new Map(heads.map((head) => [head.chain, { seq: BigInt(head.seq), hash: head.head_hash }]));
  const linked: StoredAuditEntry[] = [];
  for (const entry of entries) {
    if (skip.has(entry.id)) continue;
    skip.add(entry.id);
    const head = links.get(entry.producer)!;
    const row = { ...entry, created_at: new Date(entry.created_at) };
    const next = { seq: head.seq + 1n, hash: auditEntryHash(head.hash, row) };
    linked.push({ ...row, chain_seq: next.seq.toString(), prev_hash: head.hash, hash: next.hash });
    links.set(entry.producer, next);
  }
  return linked;
}

/**
 * Stores the entries in the caller's transaction, in their order, each joined to its producer's
 * hash chain (ADR 0067), in two statements whatever their number and producers: the heads locked
 * (`lockHeads`), then every new row written and each chain's head moved to its last row written.
 * The rows travel as arrays, so the statement's text, prepared once per connection, never changes.
 *
 * The event id is the row id, so a republished event is a no-op even past the inbox and moves no
 * chain: `lockHeads` names the ids stored already and they are left out before anything is linked.
 * No other transaction can store an id meanwhile through the inbox: it would have to write the
 * event's inbox row first, which waits for this transaction's. The insert has no ON CONFLICT clause,
 * so should a writer outside the inbox store one of the ids meanwhile, it fails and the transaction
 * rolls back rather than link the rows after it to a head that never moved (the event's retry then
 * finds the row and skips it). The time is stored to the millisecond, the precision the hash covers.
 *
 * Meant to be called once per transaction (the inbox hands it a batch's entries at once): a second
 * call links correctly, but locks its heads after the first call's, out of chain order.
 */
export async function insertAuditLogs(tx: Tx, entries: readonly NewAuditLog[]) {
  if (entries.length === 0) return;
  const linked = linkEntries(await lockHeads(tx, entries), entries);
  if (linked.length === 0) return;
  await tx.query(
    INSERT_LINKED,
    WRITTEN.map((column) => linked.map((row) => (column === 'detail' ? JSON.stringify(row.detail) : row[column]))),
  );
}

export interface AuditLogFilter {
  actor_id?: string;
  action?: string;
  biz_type?: string;
}

/** Newest first, the page after `cursor`. */
export async function findAuditLogs(
  db: Queryable,
  filter: AuditLogFilter,
  page: { limit: number; cursor: string | undefined },
): Promise<KeysetPageResult<AuditLogRow>> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const column of ['actor_id', 'action', 'biz_type'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  return keysetPage<AuditLogRow>(db, {
    query: `SELECT id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, created_at
      FROM audit_logs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
    params,
    orderBy: NEWEST_FIRST,
    ...page,
  });
}
