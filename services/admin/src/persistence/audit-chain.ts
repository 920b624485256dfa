import { chainHash, findChainBreaks, HeadsDigest, type CanonicalValue, type ChainBreak } from '@market/shared/crypto';
import type { Queryable } from '@market/shared/db';
import type { AuditLogRow } from './audit-logs';

/**
 * The audit log is one hash chain per producing service (ADR 0067): entries of one producer are
 * linked in the order they were stored (`chain_seq`), and `audit_chains` keeps each chain's head.
 * Per producer rather than one chain, so two admin replicas storing entries of different services
 * never wait on each other; entries of one producer queue on that chain's head row.
 */

/**
 * An audit entry's columns as written, or as read back; the migration that chained the existing log
 * reads `actor_type` and `result` as plain text.
 */
export type ChainedAuditEntry = Omit<AuditLogRow, 'actor_type' | 'result'> & { actor_type: string; result: string; producer: string };

/** The columns an entry's hash covers: every column but its chain position and its hashes. */
const HASHED_COLUMNS = ['id', 'actor_type', 'actor_id', 'action', 'biz_type', 'biz_id', 'detail', 'ip', 'result', 'request_id', 'producer', 'created_at'] as const;

function auditContent(entry: ChainedAuditEntry): Record<string, CanonicalValue> {
  return Object.fromEntries(HASHED_COLUMNS.map((column) => [column, entry[column] as CanonicalValue]));
}

export function auditEntryHash(previousHash: string, entry: ChainedAuditEntry): string {
  return chainHash(previousHash, auditContent(entry));
}

const PAGE = 5000;

/** An entry with its place in its chain: as written, and as read back. */
export type StoredAuditEntry = ChainedAuditEntry & { chain_seq: string; prev_hash: string; hash: string };

/** What the audit chains' verification finds: how many chains were walked and each one's first break. */
export interface AuditChainVerification {
  chains: number;
  entries: number;
  /** one hash over every chain's head (ADR 0067): what is logged daily, so a rewritten chain no longer matches the record outside the database */
  head_hash: string;
  breaks: ChainBreak[];
}

/** The hash over every chain's head; `chains` in chain order, as `auditChainHeads` reads them. */
export function headsHash(chains: Array<{ chain: string; head_hash: string }>): string {
  const digest = new HeadsDigest();
  for (const c of chains) digest.add(c.chain, c.head_hash);
  return digest.value;
}

/** Every chain's head as stored now, in chain order (byte order, the same on every database). */
export async function auditChainHeads(db: Queryable): Promise<Array<{ chain: string; seq: string; head_hash: string }>> {
  return db.query(`SELECT chain, seq, head_hash FROM audit_chains ORDER BY chain COLLATE "C"`);
}

/**
 * Recomputes every producer's chain in the order it was stored and answers each chain's first break:
 * an altered entry, one that does not follow the one before it (removed or inserted), or a head that
 * does not name the newest entry. Page by page; `db` should be one snapshot.
 */
export async function verifyAuditChains(db: Queryable): Promise<AuditChainVerification> {
  const chains = await auditChainHeads(db);
  const { breaks, records } = await findChainBreaks<StoredAuditEntry>({
    heads: new Map(chains.map((c) => [c.chain, c.head_hash])),
    page: (after) =>
      db.query(
        `SELECT id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, producer, created_at, chain_seq, prev_hash, hash
         FROM audit_logs ${after ? 'WHERE (producer, chain_seq) > ($1, $2::bigint)' : ''} ORDER BY producer, chain_seq LIMIT ${PAGE}`,
        after ? [after.producer, after.chain_seq] : [],
      ),
    pageSize: PAGE,
    chainOf: (row) => row.producer,
    recordOf: (row) => ({ id: row.id, prevHash: row.prev_hash, hash: row.hash, content: auditContent(row) }),
  });
  return { chains: chains.length, entries: records, head_hash: headsHash(chains), breaks };
}
