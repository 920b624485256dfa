import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { type Logger } from '@market/shared/logging';
import { StorageUnavailable } from '../../domain/errors';
import { isFileKey } from '../../domain/file-key';
import { ObjectNotFound, type BucketObject, type Storage } from './storage';

export interface S3StorageSettings {
  /** unset: AWS S3's own endpoint for the region */
  endpoint?: string;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  /** prepended to every key (`''` or segments ending with `/`) */
  keyPrefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  timeoutMs: number;
}

/** The object's SHA-256 (hex), kept in its user metadata so a copy can be checked without reading it. */
const SHA256_METADATA = 'sha256';

/** The two digests of a file in one read: MD5 for the store to check the bytes it received, SHA-256 for its metadata. */
async function digestsOf(filePath: string): Promise<{ md5: string; sha256: string }> {
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  for await (const chunk of createReadStream(filePath)) {
    md5.update(chunk as Buffer);
    sha256.update(chunk as Buffer);
  }
  return { md5: md5.digest('base64'), sha256: sha256.digest('hex') };
}

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');
}

/**
 * Objects in an S3-compatible bucket (S3, Aliyun OSS, Tencent COS, MinIO), through their S3 API.
 * Objects are written without an ACL, so they take the bucket's, which must be private: every read
 * goes through the service and its grants. A PutObject is all or nothing: a failed or cut upload
 * leaves no object. Any failure but "no such key" is the store being unavailable (503), logged
 * with its name and status only (never a header: they carry the signature).
 */
export class S3Storage implements Storage {
  private readonly client: S3Client;

  constructor(
    private readonly settings: S3StorageSettings,
    private readonly log: Logger,
  ) {
    const sdkNote = (...content: unknown[]) => log.debug({ note: content.filter((c) => typeof c === 'string').join(' ') }, 'S3 client note');
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // The SDK's default CRC32 checksums stream the body in aws-chunked encoding with a trailer,
      // which OSS, COS and older MinIO refuse; Content-MD5 (sent on every put) checks the bytes instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Reads, heads and deletes are retried; a put is not (its body is a stream read once): the client tries again.
      maxAttempts: 3,
      // bounds the wait for a connection and every silence after it (a stalled store), not a whole
      // transfer: a 10 MB upload over a slow link may take longer than either
      requestHandler: { connectionTimeout: settings.timeoutMs, socketTimeout: settings.timeoutMs },
      // The SDK would otherwise write its own notes to the console; failures are logged below, once, by name.
      logger: { debug: () => undefined, info: () => undefined, warn: sdkNote, error: sdkNote },
    });
  }

  /** Only generated keys reach the bucket, under the configured prefix. */
  private objectKey(key: string): string {
    if (!isFileKey(key)) throw new ObjectNotFound(key);
    return `${this.settings.keyPrefix}${key}`;
  }

  private unavailable(operation: string, key: string, err: unknown): StorageUnavailable {
    const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
    const code = (err as NodeJS.ErrnoException).code;
    this.log.warn({ operation, key, error: (err as Error).name, code, status }, 'object storage failed');
    return new StorageUnavailable();
  }

  async put(key: string, fromPath: string): Promise<void> {
    const objectKey = this.objectKey(key);
    const [{ size }, digests] = await Promise.all([stat(fromPath), digestsOf(fromPath)]);
    // A store that refuses at once leaves the stream unread, still opening the file its caller then
    // removes: that late ENOENT would be an unhandled 'error' event and end the process. What the SDK
    // reads of it, the SDK reports through its own listener.
    const body = createReadStream(fromPath).on('error', () => undefined);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: objectKey,
          // streamed from the file; the length lets the SDK send it without reading it whole first
          Body: body,
          ContentLength: size,
          ContentMD5: digests.md5,
          Metadata: { [SHA256_METADATA]: digests.sha256 },
        }),
      );
    } catch (err) {
      throw this.unavailable('put', key, err);
    } finally {
      body.destroy();
    }
  }

  async open(key: string): Promise<Readable> {
    const objectKey = this.objectKey(key);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      if (!(answer.Body instanceof Readable)) throw new Error('the object body is not a stream');
      return answer.Body;
    } catch (err) {
      if (isMissing(err)) throw new ObjectNotFound(key);
      throw this.unavailable('open', key, err);
    }
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
    } catch (err) {
      if (isMissing(err)) return;
      throw this.unavailable('delete', key, err);
    }
  }

  /** The object's size and recorded SHA-256, or null when there is none. */
  async head(key: string): Promise<BucketObject | null> {
    const objectKey = this.objectKey(key);
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      return { size: answer.ContentLength ?? 0, sha256: answer.Metadata?.[SHA256_METADATA] };
    } catch (err) {
      if (isMissing(err)) return null;
      throw this.unavailable('head', key, err);
    }
  }

  /** SHA-256 (hex) of the object's bytes as the bucket sends them back, read as a stream. */
  async sha256Of(key: string): Promise<string> {
    const hash = createHash('sha256');
    await pipeline(await this.open(key), hash);
    return hash.digest('hex');
  }

  close(): void {
    this.client.destroy();
  }
}
