import { type Identity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { FileNotFound } from '../domain/errors';
import { isFileKey } from '../domain/file-key';
import { userMayRead } from '../domain/read-access';
import { findFileForReader, type FileRecord } from '../persistence/file-repository';
import type { FilesDeps } from './deps';

/**
 * The file behind `key` if this caller may read it. Everything else — a malformed or traversing
 * key, an unknown file, a private file of someone else — is the same 404, so a stranger cannot
 * even learn that a private file exists.
 */
export async function findReadableFile(deps: FilesDeps, key: string, caller: Identity): Promise<FileRecord> {
  if (!isFileKey(key)) throw new FileNotFound();
  const userId = caller.kind === 'user' && isUuid(caller.sub) ? caller.sub : null;
  const found = await findFileForReader(deps.db, key, userId);
  if (!found || !userMayRead(found.file, userId, found.attached)) throw new FileNotFound();
  return found.file;
}
