import { type SealedColumn } from '@market/shared/crypto';
import {
  isUuid,
  keysetPage,
  type Queryable,
  type Tx,
  type KeysetOrder,
  type KeysetPageResult,
} from '@market/shared/db';
import { type FieldError } from '@market/shared/errors';
import type { UploadOutcome } from '../domain/open-upload';

export const OPEN_UPLOAD_RAW_SEALED: SealedColumn = { table: 'open_uploads', column: 'raw_sealed', idColumn: 'id' };

/** One delivery to the open upload, whatever became of it. */
export interface OpenUploadRecord {
  id: string;
  received_at: Date;
  ip: string | null;
  request_id: string | null;
  uploader_name: string | null;
  upload_time: string | null;
  matched_admin_id: string | null;
  publisher_user_id: string | null;
  outcome: UploadOutcome;
  /** the HTTP status the uploader was answered, and the problem code of a refusal */
  status: number;
  code: string | null;
  reason: string | null;
  errors: FieldError[];
  item_count: number;
  byte_count: number;
  bytes_truncated: boolean;
  /** the bytes as received (the first ones of a refused delivery), sealed: they carry account passwords */
  raw_sealed: string;
  redacted: unknown;
  redacted_text: string | null;
  result: unknown;
}

// Postgres text and jsonb hold neither U+0000 nor a lone surrogate, and a refused delivery is
// recorded precisely when it carries such things; the readable copies get U+FFFD instead.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storable<T>(value: T): T {
  if (typeof value === 'string') return value.replace(UNSTORABLE, '\ufffd') as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)])) as T;
  }
  return value;
}

const COLUMNS = [
  'id', 'received_at', 'ip', 'request_id', 'uploader_name', 'upload_time', 'matched_admin_id', 'publisher_user_id', 'outcome',
  'status', 'code', 'reason', 'errors', 'item_count', 'byte_count', 'bytes_truncated', 'raw_sealed', 'redacted', 'redacted_text',
  'result',
] as const satisfies ReadonlyArray<keyof OpenUploadRecord>;
const JSON_COLUMNS: ReadonlySet<string> = new Set(['errors', 'redacted', 'result']);

export async function insertOpenUpload(tx: Tx, record: OpenUploadRecord) {
  const safe = storable(record);
  await tx.query(
    `INSERT INTO open_uploads (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
    COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(safe[c] ?? null) : safe[c])),
  );
}

/** What the back office reads; the sealed bytes never leave the table. */
export type OpenUploadRow = Omit<OpenUploadRecord, 'raw_sealed'>;
const READ_COLUMNS = COLUMNS.filter((c) => c !== 'raw_sealed').join(', ');
const SUMMARY_COLUMNS = COLUMNS.filter((c) => c !== 'raw_sealed' && c !== 'redacted' && c !== 'redacted_text').join(', ');

export async function findOpenUpload(db: Queryable, id: string): Promise<OpenUploadRow | null> {
  if (!isUuid(id)) return null;
  const rows: OpenUploadRow[] = await db.query(`SELECT ${READ_COLUMNS} FROM open_uploads WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export interface OpenUploadQuery {
  uploaderName?: string;
  outcome?: UploadOutcome;
  receivedFrom?: Date;
  receivedTo?: Date;
  cursor: string | undefined;
  limit: number;
}

const NEWEST_RECEIVED_FIRST: KeysetOrder = {
  keys: [
    { column: 'received_at', type: 'timestamptz' },
    { column: 'id', type: 'uuid' },
  ],
  direction: 'desc',
};

export type OpenUploadSummaryRow = Omit<OpenUploadRow, 'redacted' | 'redacted_text'>;

/** One page of deliveries, newest first. */
export async function queryOpenUploads(db: Queryable, q: OpenUploadQuery): Promise<KeysetPageResult<OpenUploadSummaryRow>> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (q.uploaderName !== undefined) where.push(`uploader_name = ${param(q.uploaderName)}`);
  if (q.outcome !== undefined) where.push(`outcome = ${param(q.outcome)}`);
  if (q.receivedFrom) where.push(`received_at >= ${param(q.receivedFrom)}`);
  if (q.receivedTo) where.push(`received_at < ${param(q.receivedTo)}`);
  return keysetPage<OpenUploadSummaryRow>(db, {
    query: `SELECT ${SUMMARY_COLUMNS} FROM open_uploads ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
    params,
    orderBy: NEWEST_RECEIVED_FIRST,
    limit: q.limit,
    cursor: q.cursor,
  });
}
