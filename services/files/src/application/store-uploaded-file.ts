import { isUuid } from '@market/shared/db';
import { Forbidden } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { isAcceptedContentType } from '../domain/content-type';
import { FileTypeNotAccepted } from '../domain/errors';
import { newFileKey } from '../domain/file-key';
import { sanitiseOriginalName } from '../domain/file-name';
import type { Scene } from '../domain/scene';
import { sha256OfFile } from '../adapters/media/sha256-of-file';
import { sniffContentType } from '../adapters/media/sniff-content-type';
import { insertFile, type FileRecord } from '../persistence/file-repository';
import type { FilesDeps } from './deps';

/** A file multer has written to the temporary folder; the caller removes it afterwards. */
export interface ReceivedFile {
  path: string;
  originalName: string;
  size: number;
}

/**
 * Keeps an upload whose bytes are a JPG, PNG, WebP or PDF (magic numbers only: the name and the
 * part's Content-Type are the client's word), under a fresh key, with its metadata.
 */
export async function storeUploadedFile(
  deps: FilesDeps,
  input: { ownerId: string; scene: Scene; received: ReceivedFile },
): Promise<FileRecord> {
  if (!isUuid(input.ownerId)) throw new Forbidden('this caller cannot own files');
  const contentType = await sniffContentType(input.received.path);
  if (!isAcceptedContentType(contentType)) throw new FileTypeNotAccepted();
  const sha256 = await sha256OfFile(input.received.path);
  const key = newFileKey(input.scene, contentType, uuidv7(), new Date());
  // Bytes first, row second: a crash in between leaves an unreferenced object, never a row without bytes.
  await deps.storage.put(key, input.received.path);
  try {
    return await deps.db.transaction((tx) =>
      insertFile(tx, {
        key,
        owner_id: input.ownerId,
        scene: input.scene,
        content_type: contentType,
        size: input.received.size,
        sha256,
        original_name: sanitiseOriginalName(input.received.originalName, contentType),
      }),
    );
  } catch (err) {
    await deps.storage.delete(key).catch(() => undefined);
    throw err;
  }
}
