import { problems } from '@market/shared';
import type { DataSource } from 'typeorm';
import { isFileKey } from '../domain/file-key';
import { findFile, type FileRecord } from '../persistence/file-repository';

export async function getFileMeta(db: DataSource, key: string): Promise<FileRecord> {
  if (!isFileKey(key)) throw problems.notFound();
  const file = await findFile(db, key);
  if (!file) throw problems.notFound();
  return file;
}
