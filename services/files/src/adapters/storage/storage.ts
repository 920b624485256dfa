import type { Readable } from 'node:stream';

/**
 * Where file bytes live. Keys are the generated file keys (`<scene>/<yyyy>/<mm>/<id>.<ext>`);
 * adapters may rely on that shape. The local disk is the default (`LocalDiskStorage`); a bucket of
 * any S3-compatible store is the other (`S3Storage`: put = PutObject from the file, open =
 * GetObject's body, delete = DeleteObject), chosen by `FILES_STORAGE` (choose-storage.ts).
 * A store that cannot be reached or whose volume fails throws `StorageUnavailable` (a 503).
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

/** What a bucket says of one of its objects without sending it. */
export interface BucketObject {
  size: number;
  /** the SHA-256 (hex) recorded with the object when it was written; absent on objects written by other tools */
  sha256: string | undefined;
}

/** The disk store's objects as a source to copy from (`LocalDiskStorage`). */
export interface DiskObjects {
  keys(): AsyncIterable<string>;
  /** the file holding the object's bytes */
  pathOf(key: string): string;
  delete(key: string): Promise<void>;
}

/** A bucket to copy into and check copies in (`S3Storage`). */
export interface Bucket {
  /** writes the file at `fromPath` under `key`, leaving the file where it is */
  put(key: string, fromPath: string): Promise<void>;
  head(key: string): Promise<BucketObject | null>;
  /** the SHA-256 (hex) of the object's bytes as the bucket sends them */
  sha256Of(key: string): Promise<string>;
}
