import { FileNotFound } from '../domain/errors';
import { isFileKey } from '../domain/file-key';
import { findFile, type FileRecord } from '../persistence/file-repository';
import type { FilesDeps } from './deps';

export async function getFileMeta(deps: FilesDeps, key: string): Promise<FileRecord> {
  if (!isFileKey(key)) throw new FileNotFound();
  const file = await findFile(deps.db, key);
  if (!file) throw new FileNotFound();
  return file;
}
