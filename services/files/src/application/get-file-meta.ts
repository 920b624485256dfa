import { problems } from '@market/shared/http';
import { isFileKey } from '../domain/file-key';
import { findFile, type FileRecord } from '../persistence/file-repository';
import type { FilesDeps } from './deps';

export async function getFileMeta(deps: FilesDeps, key: string): Promise<FileRecord> {
  if (!isFileKey(key)) throw problems.notFound();
  const file = await findFile(deps.db, key);
  if (!file) throw problems.notFound();
  return file;
}
