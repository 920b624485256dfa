import { problems, type Db } from '@market/shared';
import { isFileKey } from '../domain/file-key';
import { findFile, type FileRecord } from '../persistence/file-repository';

export async function getFileMeta(db: Db, key: string): Promise<FileRecord> {
  if (!isFileKey(key)) throw problems.notFound();
  const file = await findFile(db, key);
  if (!file) throw problems.notFound();
  return file;
}
