import { GENESIS_HASH } from '@market/shared/crypto';
import { keysetPage, NEWEST_FIRST, updateReturning, type KeysetPageResult, type Queryable, type Tx } from '@market/shared/db';
import { auditEntryHash } from './audit-chain';

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

/** A chain's head as the transaction that holds its row's lock left it. */
interface ChainHead {
  seq: string;
  head_hash: string;
}

/**
 * The heads each open transaction has locked, by chain: a batch of entries (the inbox hands several
 * to one transaction, ADR 0068) reads a chain's head once and links the rest to what it wrote, which
 * no one else can move while the lock is held. Dropped with the transaction's handle.
 */
const lockedHeads = new WeakMap<Tx, Map<string, ChainHead>>();

/** The chain's head, locked to the end of the transaction: created at the producer's first entry. */
async function lockedHead(tx: Tx, chain: string): Promise<ChainHead> {
  const held = lockedHeads.get(tx) ?? new Map<string, ChainHead>();
  lockedHeads.set(tx, held);
  const known = held.get(chain);
  if (known) return known;
  const [head]: ChainHead[] = await tx.query(
    `INSERT INTO audit_chains (chain, seq, head_hash) VALUES ($1, 0, $2)
     ON CONFLICT (chain) DO UPDATE SET chain = EXCLUDED.chain
     RETURNING seq, head_hash`,
    [chain, GENESIS_HASH],
  );
  held.set(chain, head!);
  return head!;
}

/**
 * The event id is the row id, so a republished event is a no-op even past the inbox. The entry joins
 * its producer's hash chain (ADR 0067): the chain's head row is locked (created at the producer's
 * first entry) so two consumers never link to the same head, and moves only when the row is new.
 * The time is stored to the millisecond, the precision the hash covers.
 */
export async function insertAuditLog(tx: Tx, entry: NewAuditLog) {
  const head = await lockedHead(tx, entry.producer);
  const createdAt = new Date(entry.created_at);
  const seq = (BigInt(head.seq) + 1n).toString();
  const hash = auditEntryHash(head.head_hash, { ...entry, created_at: createdAt });
  const moved = await updateReturning<ChainHead>(
    tx,
    `WITH inserted AS (
       INSERT INTO audit_logs (id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, producer, created_at, chain_seq, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (id) DO NOTHING
       RETURNING id
     )
     UPDATE audit_chains SET seq = $13, head_hash = $15 WHERE chain = $11 AND EXISTS (SELECT 1 FROM inserted)
     RETURNING seq, head_hash`,
    [
      entry.id,
      entry.actor_type,
      entry.actor_id,
      entry.action,
      entry.biz_type,
      entry.biz_id,
      JSON.stringify(entry.detail),
      entry.ip,
      entry.result,
      entry.request_id,
      entry.producer,
      createdAt,
      seq,
      head.head_hash,
      hash,
    ],
  );
  if (moved[0]) lockedHeads.get(tx)!.set(entry.producer, moved[0]);
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
