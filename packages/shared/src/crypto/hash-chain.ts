import { createHash } from 'node:crypto';

/**
 * Hash chains over append-only records (the wallet's ledger entries, the back office's audit log;
 * ADR 0067): each record carries the SHA-256 of the previous record's hash and its own canonical
 * content, so altering, removing or inserting one breaks every link after it.
 */

/** The previous hash of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a record's canonical content may hold: JSON values, plus dates and bigints (a database's timestamps and bigint columns). */
export type CanonicalValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | Date
  | readonly CanonicalValue[]
  | { readonly [key: string]: CanonicalValue };

/**
 * One serialisation for a record whichever way it was read: object keys sorted (so field order is
 * fixed), keys holding `undefined` left out (as JSON and jsonb leave them out), integers as digits
 * whether a number or a bigint, dates as UTC ISO-8601 with milliseconds. A non-finite number cannot
 * be stored in JSON or a bigint column, so it is refused rather than hashed as something else.
 */
export function canonicalJson(value: CanonicalValue): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot hash the non-finite number ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Error('cannot hash an invalid date');
    return JSON.stringify(value.toISOString());
  }
  if (Array.isArray(value)) return `[${value.map((item: CanonicalValue) => canonicalJson(item)).join(',')}]`;
  const record = value as { readonly [key: string]: CanonicalValue };
  const fields = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${fields.join(',')}}`;
}

/** The hash of a record that follows `previousHash`: SHA-256 over the previous hash and the record's canonical content, hex. */
export function chainHash(previousHash: string, content: CanonicalValue): string {
  return createHash('sha256').update(previousHash).update('\n').update(canonicalJson(content)).digest('hex');
}

/** A record as a chain's verifier reads it back. */
export interface ChainedRecord {
  /** what names the record to whoever repairs it (its id) */
  id: string;
  prevHash: string;
  hash: string;
  content: CanonicalValue;
}

/** The first thing wrong with one chain, or null when every link holds and the head names its last record. */
export interface ChainBreak {
  chain: string;
  /** the record at which the chain stops holding (null: the chain's head names no record of it) */
  entry: string | null;
  /**
   * `altered`: the record's content or hash was changed; `removed_or_inserted`: the record does not
   * follow the one before it (one between was removed, or it was inserted), or it lies past the
   * chain's head (inserted at the end); `head_mismatch`: the chain's head is not its newest record
   * (the newest records were removed, or the head was changed)
   */
  problem: 'altered' | 'removed_or_inserted' | 'head_mismatch';
}

/**
 * Walks one chain's records in the order they were written, one at a time (a verifier pages
 * through tables too large to hold), and keeps the chain's first break. `head` is the hash the
 * writer last recorded for the chain (kept apart from the records), null where it has none.
 */
export class ChainWalk {
  private previous = GENESIS_HASH;
  private broken: ChainBreak | null = null;

  constructor(
    readonly chain: string,
    private readonly head: string | null,
  ) {}

  add(record: ChainedRecord): void {
    if (this.broken) return;
    if (record.prevHash !== this.previous || this.previous === this.head) {
      this.broken = { chain: this.chain, entry: record.id, problem: 'removed_or_inserted' };
    } else if (chainHash(this.previous, record.content) !== record.hash) {
      this.broken = { chain: this.chain, entry: record.id, problem: 'altered' };
    } else {
      this.previous = record.hash;
    }
  }

  /** The chain's first break once every record was added, or null. */
  finish(): ChainBreak | null {
    if (this.broken) return this.broken;
    if (this.head !== this.previous) return { chain: this.chain, entry: null, problem: 'head_mismatch' };
    return null;
  }
}

/** The first break of one chain whose records are all at hand. */
export function findChainBreak(chain: string, records: Iterable<ChainedRecord>, head: string | null): ChainBreak | null {
  const walk = new ChainWalk(chain, head);
  for (const record of records) walk.add(record);
  return walk.finish();
}

/**
 * One hash over every chain's head, folded in chain order (`add` in ascending chain name), so a
 * verifier pages through any number of chains: the value logged daily as the anchor of a set of
 * chains (ADR 0067). It changes whenever any head does.
 */
export class HeadsDigest {
  private digest = GENESIS_HASH;

  add(chain: string, head: string): void {
    this.digest = chainHash(this.digest, [chain, head]);
  }

  get value(): string {
    return this.digest;
  }
}

/**
 * Where a verifier reads many chains from: their records in chain order, then written order, a page
 * at a time (each page after the last row of the page before, none for the first), and each chain's
 * stored head.
 */
export interface ChainSource<Row> {
  heads: ReadonlyMap<string, string>;
  page(after: Row | null): Promise<Row[]>;
  pageSize: number;
  chainOf(row: Row): string;
  recordOf(row: Row): ChainedRecord;
}

/**
 * Every chain's first break, walking the records page by page (so a table of any size verifies in
 * bounded memory), and how many records were read. A chain whose records are all gone must still be
 * at its start: its head is checked alone.
 */
export async function findChainBreaks<Row>(source: ChainSource<Row>): Promise<{ breaks: ChainBreak[]; records: number }> {
  const unvisited = new Map(source.heads);
  const breaks: ChainBreak[] = [];
  let records = 0;
  let walk: ChainWalk | null = null;
  const finish = (done: ChainWalk) => {
    const found = done.finish();
    if (found) breaks.push(found);
    unvisited.delete(done.chain);
  };
  let after: Row | null = null;
  for (;;) {
    const rows = await source.page(after);
    for (const row of rows) {
      const chain = source.chainOf(row);
      if (walk?.chain !== chain) {
        if (walk) finish(walk);
        // a chain whose head was deleted has none to reach: it breaks at its end
        walk = new ChainWalk(chain, source.heads.get(chain) ?? null);
      }
      walk.add(source.recordOf(row));
    }
    records += rows.length;
    if (rows.length < source.pageSize) break;
    after = rows[rows.length - 1]!;
  }
  if (walk) finish(walk);
  for (const [chain, head] of unvisited) finish(new ChainWalk(chain, head));
  return { breaks, records };
}
