import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { problems, type Logger } from '@market/shared';
import { dispositionOf } from '../domain/content-type';
import { isPublicScene } from '../domain/scene';
import type { FileRecord } from '../persistence/file-repository';
import { ObjectNotFound, type Storage } from '../storage/storage';
import { contentDisposition } from './content-disposition';

/** `If-None-Match` against our strong tag; weak comparison, as RFC 9110 asks for this header. */
function matchesETag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * Streams a stored file with the headers of contract §6. Keys never change content, so a public
 * file may be cached for good; a private one is never stored by a cache.
 */
export async function sendStoredFile(req: Request, res: Response, file: FileRecord, storage: Storage, log: Logger) {
  const validators = {
    ETag: `"${file.sha256}"`,
    'Cache-Control': isPublicScene(file.scene) ? 'public, max-age=31536000, immutable' : 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  if (matchesETag(req.header('if-none-match'), validators.ETag)) {
    res.status(304).set(validators).end();
    return;
  }

  let body: Readable;
  try {
    body = await storage.open(file.key);
  } catch (err) {
    if (!(err instanceof ObjectNotFound)) throw err;
    log.error({ key: file.key }, 'file has metadata but no stored object');
    throw problems.notFound();
  }
  res.status(200).set({
    ...validators,
    'Content-Type': file.content_type,
    'Content-Length': String(file.size),
    'Content-Disposition': contentDisposition(dispositionOf(file.content_type), file.original_name),
  });
  try {
    await pipeline(body, res);
  } catch (err) {
    // A client that goes away mid-download is not our error; the response is already under way.
    if (!res.headersSent) throw err;
    log.debug({ key: file.key, err: { message: (err as Error).message } }, 'file stream ended early');
  }
}
