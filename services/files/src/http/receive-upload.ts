import { rm } from 'node:fs/promises';
import type { Request, Response } from 'express';
import multer from 'multer';
import { MAX_FILE_BYTES } from '@market/contracts';
import { Problem, problems } from '@market/shared/http';
import { type Logger } from '@market/shared/logging';
import { volumeUnavailable } from '../adapters/storage/volume-failure';
import type { ReceivedFile } from '../application/store-uploaded-file';

export interface ReceivedUpload {
  /** the `file` part, streamed to a temporary file; absent when the request carried none */
  file: ReceivedFile | undefined;
  /** the text fields */
  fields: Record<string, unknown>;
}

/**
 * Multer's limit errors are mapped by the kit's error handler; the upload folder failing is the
 * store's volume failing (503 STORAGE_UNAVAILABLE, as the store answers it). Anything else from the
 * parser (no boundary, a broken or cut-off body) is the client's doing: reading the body is the
 * edge's business, so those are answered as problems here.
 */
function asRequestError(err: unknown, req: Request, log: Logger): unknown {
  if (err instanceof multer.MulterError) return err;
  if (typeof (err as NodeJS.ErrnoException).syscall === 'string') return volumeUnavailable(log, 'receive', err);
  if (req.destroyed) return new Problem(400, 'REQUEST_ABORTED', 'the request body was cut short');
  return problems.validation([{ path: '(multipart)', message: 'malformed multipart body' }], 'the multipart body could not be read');
}

export type UploadReceiver = <T>(req: Request, res: Response, use: (upload: ReceivedUpload) => Promise<T>) => Promise<T>;

/**
 * Streams the multipart body to a temporary file (never the whole body in memory), enforcing the
 * limits as it reads: a file over 10 MB stops with LIMIT_FILE_SIZE (413), an unexpected part or
 * too many fields with a 400. Multer removes the partial file on those errors; the temporary file
 * of an accepted body is removed once `use` is done, whatever it did with it.
 */
export function createUploadReceiver(tempDir: string, log: Logger): UploadReceiver {
  const parse = multer({
    storage: multer.diskStorage({ destination: tempDir }),
    limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 5, fieldSize: 1024 },
    defParamCharset: 'utf8',
  }).single('file');

  return async (req, res, use) => {
    await new Promise<void>((resolve, reject) => {
      parse(req, res, (err: unknown) => (err ? reject(asRequestError(err, req, log)) : resolve()));
    });
    const file = req.file;
    try {
      return await use({
        file: file && { path: file.path, originalName: file.originalname, size: file.size },
        fields: { ...(req.body as Record<string, unknown> | undefined) },
      });
    } finally {
      // a volume failing meanwhile leaves the file to the sweep of abandoned uploads, and the answer as it was
      if (file?.path) await rm(file.path, { force: true }).catch(() => undefined);
    }
  };
}
