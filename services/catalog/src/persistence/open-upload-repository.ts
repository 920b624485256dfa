import { isUuid, problems, type CursorPosition, type EntityManager, type FieldError } from '@market/shared';
import type { UploadOutcome } from '../domain/open-upload';

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

export async function insertOpenUpload(manager: EntityManager, record: OpenUploadRecord) {
  const safe = storable(record);
  await manager.query(
    `INSERT INTO open_uploads (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
    COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(safe[c] ?? null) : safe[c])),
  );
}

/** What the back office reads; the sealed bytes never leave the table. */
export type OpenUploadRow = Omit<OpenUploadRecord, 'raw_sealed'>;
const READ_COLUMNS = COLUMNS.filter((c) => c !== 'raw_sealed').join(', ');
const SUMMARY_COLUMNS = COLUMNS.filter((c) => c !== 'raw_sealed' && c !== 'redacted' && c !== 'redacted_text').join(', ');

export async function findOpenUpload(manager: EntityManager, id: string): Promise<OpenUploadRow | null> {
  if (!isUuid(id)) return null;
  const rows: OpenUploadRow[] = await manager.query(`SELECT ${READ_COLUMNS} FROM open_uploads WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export interface OpenUploadQuery {
  uploaderName?: string;
  outcome?: UploadOutcome;
  receivedFrom?: Date;
  receivedTo?: Date;
  after: CursorPosition | null;
  limit: number;
}

export const openUploadPosition = (row: Pick<OpenUploadRow, 'received_at' | 'id'>): CursorPosition => ({
  v: row.received_at.toISOString(),
  id: row.id,
});

function afterPosition(after: CursorPosition): [string, string] {
  const at = typeof after.v === 'string' ? Date.parse(after.v) : Number.NaN;
  if (!isUuid(after.id) || !(at >= 0 && at < Date.UTC(10000, 0, 1))) {
    throw problems.validation([{ path: 'query.cursor', message: 'cursor is not valid for this list' }]);
  }
  return [new Date(at).toISOString(), after.id];
}

/** One page (plus one row, to know whether another follows), newest first. */
export async function queryOpenUploads(manager: EntityManager, q: OpenUploadQuery): Promise<Array<Omit<OpenUploadRow, 'redacted' | 'redacted_text'>>> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (q.uploaderName !== undefined) where.push(`uploader_name = ${param(q.uploaderName)}`);
  if (q.outcome !== undefined) where.push(`outcome = ${param(q.outcome)}`);
  if (q.receivedFrom) where.push(`received_at >= ${param(q.receivedFrom)}`);
  if (q.receivedTo) where.push(`received_at < ${param(q.receivedTo)}`);
  if (q.after) {
    const [at, id] = afterPosition(q.after);
    where.push(`(received_at, id) < (${param(at)}::timestamptz, ${param(id)}::uuid)`);
  }
  return manager.query(
    `SELECT ${SUMMARY_COLUMNS} FROM open_uploads ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY received_at DESC, id DESC LIMIT ${param(q.limit + 1)}`,
    params,
  );
}
