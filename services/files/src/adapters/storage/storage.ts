import type { Readable } from 'node:stream';

/**
 * Where file bytes live. Keys are the generated file keys (`<scene>/<yyyy>/<mm>/<id>.<ext>`);
 * adapters may rely on that shape. The local disk is the default; an S3-compatible adapter
 * implements the same three calls (put = PutObject from the file, open = GetObject body,
 * delete = DeleteObject).
 */
export interface Storage {
  /** stores the file at `fromPath` under `key`; `fromPath` may be consumed (moved) */
  put(key: string, fromPath: string): Promise<void>;
  /** the object's bytes; throws `ObjectNotFound` when there is none */
  open(key: string): Promise<Readable>;
  /** removes the object; absent objects are not an error */
  delete(key: string): Promise<void>;
}

export class ObjectNotFound extends Error {
  constructor(readonly key: string) {
    super('stored object not found');
  }
}
