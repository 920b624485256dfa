import { stat } from 'node:fs/promises';
import { sha256OfFile } from '../adapters/media/sha256-of-file';
import type { Bucket, DiskObjects } from '../adapters/storage/storage';
import { StorageUnavailable } from '../domain/errors';

export type CopyOutcome = 'copied' | 'present' | 'failed';

export interface MigrationSummary {
  total: number;
  copied: number;
  /** already in the bucket with the same size and SHA-256 (an earlier run, or a resumed one) */
  present: number;
  failed: number;
  /** disk copies removed (only when asked, and only of objects verified in the bucket) */
  deleted: number;
  bytesCopied: number;
  /** the bucket stopped answering: the run stopped there, and running it again resumes */
  interrupted: boolean;
}

export interface MigrationOptions {
  /** remove each disk copy once its object is verified in the bucket */
  deleteSource: boolean;
  /** one line per object and the summary */
  report: (line: string) => void;
}

/**
 * Whether the bucket already holds these bytes: the same size, and the same SHA-256 as recorded in
 * the object's metadata when this command or the service wrote it (after checking it), or, for an
 * object another tool wrote, as read from its bytes.
 */
async function alreadyHolds(bucket: Bucket, key: string, size: number, sha256: string): Promise<boolean> {
  const found = await bucket.head(key);
  if (!found || found.size !== size) return false;
  return found.sha256 !== undefined ? found.sha256 === sha256 : (await bucket.sha256Of(key)) === sha256;
}

/** Whether the copy just written reads back whole: its size, and the SHA-256 of the bytes the bucket sends. */
async function readsBack(bucket: Bucket, key: string, size: number, sha256: string): Promise<boolean> {
  const found = await bucket.head(key);
  return found?.size === size && (await bucket.sha256Of(key)) === sha256;
}

/**
 * Copies every object of the disk store into the bucket under the same key (`npm run
 * files:migrate-to-bucket`). Idempotent and resumable: an object the bucket already holds with the
 * same size and SHA-256 is left alone, anything else is written (again) and read back to check
 * both. The disk copy stays unless `deleteSource`, and is removed only after that check.
 */
export async function migrateToBucket(disk: DiskObjects, bucket: Bucket, options: MigrationOptions): Promise<MigrationSummary> {
  const keys: string[] = [];
  for await (const key of disk.keys()) keys.push(key);
  const summary: MigrationSummary = { total: keys.length, copied: 0, present: 0, failed: 0, deleted: 0, bytesCopied: 0, interrupted: false };
  options.report(`${keys.length} objects on disk`);

  for (const [index, key] of keys.entries()) {
    const progress = `[${index + 1}/${keys.length}] ${key}`;
    try {
      const file = disk.pathOf(key);
      const [{ size }, sha256] = await Promise.all([stat(file), sha256OfFile(file)]);
      let outcome: CopyOutcome = 'present';
      if (!(await alreadyHolds(bucket, key, size, sha256))) {
        await bucket.put(key, file);
        outcome = (await readsBack(bucket, key, size, sha256)) ? 'copied' : 'failed';
      }
      if (outcome === 'failed') {
        summary.failed += 1;
        options.report(`${progress}: FAILED: the bucket's copy does not match the disk (size or SHA-256)`);
        continue;
      }
      summary[outcome] += 1;
      if (outcome === 'copied') summary.bytesCopied += size;
      let deleted = '';
      if (options.deleteSource) {
        await disk.delete(key);
        summary.deleted += 1;
        deleted = ', disk copy deleted';
      }
      options.report(`${progress}: ${outcome === 'copied' ? `copied (${size} bytes, verified)` : 'already in the bucket'}${deleted}`);
    } catch (err) {
      summary.failed += 1;
      options.report(`${progress}: FAILED: ${(err as Error).message}`);
      if (err instanceof StorageUnavailable) {
        summary.interrupted = true;
        options.report('the bucket is unavailable: stopping here; run the command again to resume');
        break;
      }
    }
  }

  options.report(
    `summary: ${summary.copied} copied (${summary.bytesCopied} bytes), ${summary.present} already in the bucket, ${summary.failed} failed` +
      `${options.deleteSource ? `, ${summary.deleted} disk copies deleted` : ', disk copies kept'}` +
      `${summary.interrupted ? `, ${summary.total - summary.copied - summary.present - summary.failed} not tried` : ''}`,
  );
  return summary;
}
