import { parseArgs } from 'node:util';
import { baseEnvShape, loadConfig } from '@market/shared/config';
import { createLogger } from '@market/shared/logging';
import { bucketSettings } from './adapters/storage/choose-storage';
import { LocalDiskStorage } from './adapters/storage/local-disk-storage';
import { S3Storage } from './adapters/storage/s3-storage';
import { migrateToBucket } from './application/migrate-to-bucket';
import { filesEnvShape } from './config';

/**
 * `npm run files:migrate-to-bucket [-- --delete-source]`: copies the disk store (FILES_STORAGE_DIR)
 * into the bucket the FILES_S3_* variables name, whatever FILES_STORAGE says, so it runs beside a
 * service still on the disk. Exits 0 when every object is in the bucket, 1 when some failed or the
 * bucket stopped answering (run it again: it resumes), 2 when it could not start.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'delete-source': { type: 'boolean', default: false } } });
  const config = loadConfig({ NODE_ENV: baseEnvShape.NODE_ENV, LOG_LEVEL: baseEnvShape.LOG_LEVEL.default('warn'), ...filesEnvShape });
  const settings = bucketSettings(config);
  const bucket = new S3Storage(settings, createLogger('files-migrate-to-bucket', config.LOG_LEVEL));
  const report = (line: string) => process.stdout.write(`${line}\n`);
  report(`from ${config.FILES_STORAGE_DIR} to bucket ${settings.bucket}${settings.keyPrefix ? ` (prefix ${settings.keyPrefix})` : ''} at ${settings.endpoint ?? `AWS S3 ${settings.region}`}`);
  try {
    const summary = await migrateToBucket(new LocalDiskStorage(config.FILES_STORAGE_DIR), bucket, { deleteSource: values['delete-source'], report });
    return summary.failed === 0 && !summary.interrupted ? 0 : 1;
  } finally {
    bucket.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`files:migrate-to-bucket could not run: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
