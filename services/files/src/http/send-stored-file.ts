import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import type { Request, Response } from 'express';
import { type Logger } from '@market/shared/logging';
import { dispositionOf } from '../domain/content-type';
import { FileNotFound } from '../domain/errors';
import { asciiFallbackName } from '../domain/file-name';
import { isPublicScene } from '../domain/scene';
import type { FileRecord } from '../persistence/file-repository';
import { ObjectNotFound, type Storage } from '../adapters/storage/storage';

/**
 * Streams a stored file with the headers of contract §6. Keys never change content, so a public
 * file may be cached for good; a private one is never stored by a cache. A revalidation is answered
 * from the file's row alone, so it gets its 304 even while the store is unreachable.
 */
export async function sendStoredFile(req: Request, res: Response, file: FileRecord, storage: Storage, log: Logger) {
  const validators = {
    ETag: `"${file.sha256}"`,
    'Cache-Control': isPublicScene(file.scene) ? 'public, max-age=31536000, immutable' : 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  // req.fresh compares the request's If-None-Match with the ETag already set on the response
  res.set(validators);
  if (req.fresh) {
    res.status(304).end();
    return;
  }

  let body: Readable;
  try {
    body = await storage.open(file.key);
  } catch (err) {
    // the refusal (404, or 503 while the store is away) must not be kept by a cache under the file's lasting headers
    res.removeHeader('ETag');
    res.set('Cache-Control', 'no-store');
    if (!(err instanceof ObjectNotFound)) throw err;
    log.error({ key: file.key }, 'file has metadata but no stored object');
    throw new FileNotFound();
  }
  res.status(200).set({
    ...validators,
    'Content-Type': file.content_type,
    'Content-Length': String(file.size),
    // the fallback keeps `%` out of `filename=`, which some browsers would decode
    'Content-Disposition': contentDisposition(file.original_name, {
      type: dispositionOf(file.content_type),
      fallback: asciiFallbackName(file.original_name),
    }),
  });
  try {
    await pipeline(body, res);
  } catch (err) {
    // A client that goes away mid-download is not our error; the response is already under way.
    if (!res.headersSent) throw err;
    log.debug({ key: file.key, err: { message: (err as Error).message } }, 'file stream ended early');
  }
}
