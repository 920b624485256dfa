import type { Queryable, Tx } from '@market/shared/db';
import type { ContentType } from '../domain/content-type';
import type { Scene } from '../domain/scene';

export interface FileRecord {
  key: string;
  owner_id: string;
  scene: Scene;
  content_type: ContentType;
  size: number;
  sha256: string;
  original_name: string;
  created_at: Date;
}

const COLUMNS = 'key, owner_id, scene, content_type, size, sha256, original_name, created_at';

export async function insertFile(db: Queryable, file: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
  const [row] = await db.query(
    `INSERT INTO files (key, owner_id, scene, content_type, size, sha256, original_name)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [file.key, file.owner_id, file.scene, file.content_type, file.size, file.sha256, file.original_name],
  );
  return row as FileRecord;
}

export async function findFile(db: Queryable, key: string): Promise<FileRecord | null> {
  const rows: FileRecord[] = await db.query(`SELECT ${COLUMNS} FROM files WHERE key = $1`, [key]);
  return rows[0] ?? null;
}

/** The file and whether `readerId` was attached to it, in one round trip. */
export async function findFileForReader(
  db: Queryable,
  key: string,
  readerId: string | null,
): Promise<{ file: FileRecord; attached: boolean } | null> {
  const rows: Array<FileRecord & { attached: boolean }> = await db.query(
    `SELECT ${COLUMNS},
            EXISTS (SELECT 1 FROM attachments a WHERE a.key = files.key AND a.reader_id = $2) AS attached
       FROM files WHERE key = $1`,
    [key, readerId],
  );
  const row = rows[0];
  if (!row) return null;
  const { attached, ...file } = row;
  return { file, attached };
}

export async function existingKeys(db: Queryable, keys: string[]): Promise<Set<string>> {
  const rows: Array<{ key: string }> = await db.query(`SELECT key FROM files WHERE key = ANY($1::text[])`, [keys]);
  return new Set(rows.map((r) => r.key));
}

/**
 * Holds off, until the transaction ends, every other grant or end of these businesses (orders): a
 * grant racing an order's end is written either before the end deletes it or not at all. Only a
 * statement sent after this one reads what the lock waited for: in READ COMMITTED a statement sees
 * the rows committed when it began, and the holder commits while this statement waits. Several are
 * taken in the order of their lock keys, so two transactions cannot take them crosswise.
 */
async function lockBusinesses(db: Queryable, bizType: string, bizIds: readonly string[]) {
  await db.query(
    `SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtext('grants:' || $1 || ':' || id) AS k FROM unnest($2::text[]) AS id ORDER BY k) AS keys`,
    [bizType, bizIds],
  );
}

/**
 * Grants are idempotent: attaching the same file to the same reader for the same business twice is
 * one row. A business whose grants ended gets none (answers false).
 */
export async function insertAttachments(
  tx: Tx,
  grant: { keys: string[]; readerIds: string[]; bizType: string; bizId: string },
): Promise<boolean> {
  await lockBusinesses(tx, grant.bizType, [grant.bizId]);
  const ended = await tx.query(`SELECT 1 FROM ended_grants WHERE biz_type = $1 AND biz_id = $2`, [grant.bizType, grant.bizId]);
  if (ended.length > 0) return false;
  await tx.query(
    `INSERT INTO attachments (key, reader_id, biz_type, biz_id)
     SELECT k, r, $3, $4 FROM unnest($1::text[]) AS k CROSS JOIN unnest($2::uuid[]) AS r
     ON CONFLICT DO NOTHING`,
    [grant.keys, grant.readerIds, grant.bizType, grant.bizId],
  );
  return true;
}

/** Ends every read grant of these businesses (idempotent) and keeps them from getting new ones. */
export async function endGrants(tx: Tx, bizType: string, bizIds: readonly string[]): Promise<void> {
  // Two statements, not one: a grant that held the lock commits its rows while we wait for it, and
  // a delete in the lock's own statement would not see them, leaving them readable after the end.
  // Recording the ends and deleting share a statement: both run under the locks, and a grant that
  // takes one after us checks `ended_grants` only once we have committed.
  await lockBusinesses(tx, bizType, bizIds);
  await tx.query(
    `WITH ended AS (INSERT INTO ended_grants (biz_type, biz_id) SELECT $1, id FROM unnest($2::text[]) AS id ON CONFLICT DO NOTHING)
     DELETE FROM attachments WHERE biz_type = $1 AND biz_id = ANY($2::text[])`,
    [bizType, bizIds],
  );
}
