import { ConfigError, inDevelopment } from '@market/shared/config';
import { type Logger } from '@market/shared/logging';
import { LocalDiskStorage } from './local-disk-storage';
import type { S3StorageSettings } from './s3-storage';
import type { Storage } from './storage';

export interface StorageConfig {
  NODE_ENV: string;
  FILES_STORAGE: 'disk' | 's3';
  FILES_STORAGE_DIR: string;
  FILES_S3_ENDPOINT?: string;
  FILES_S3_REGION?: string;
  FILES_S3_BUCKET?: string;
  FILES_S3_FORCE_PATH_STYLE: boolean;
  FILES_S3_KEY_PREFIX: string;
  FILES_S3_ACCESS_KEY_ID?: string;
  FILES_S3_ACCESS_KEY_SECRET?: string;
  FILES_S3_TIMEOUT_MS: number;
}

/**
 * Everything wrong with the bucket's settings, one line each (never a value: two are secrets).
 * Incomplete settings are refused in every environment; outside development so is a plain-http
 * endpoint, which would send the files and the request signatures in clear.
 */
export function bucketConfigFaults(config: StorageConfig): string[] {
  const faults: string[] = [];
  const absent = (['FILES_S3_REGION', 'FILES_S3_BUCKET', 'FILES_S3_ACCESS_KEY_ID', 'FILES_S3_ACCESS_KEY_SECRET'] as const).filter((name) => !config[name]);
  if (absent.length > 0) faults.push(`the s3 store needs ${absent.join(', ')} (each as X or as a file in X_FILE)`);
  if (!inDevelopment(config) && config.FILES_S3_ENDPOINT && !config.FILES_S3_ENDPOINT.startsWith('https:')) {
    faults.push(`FILES_S3_ENDPOINT must be https outside development (NODE_ENV is ${config.NODE_ENV})`);
  }
  return faults;
}

/** The bucket's settings, or a refusal naming every fault (bucketConfigFaults). */
export function bucketSettings(config: StorageConfig): S3StorageSettings {
  const faults = bucketConfigFaults(config);
  if (faults.length > 0) throw new ConfigError(faults.join('; '));
  return {
    endpoint: config.FILES_S3_ENDPOINT,
    region: config.FILES_S3_REGION!,
    bucket: config.FILES_S3_BUCKET!,
    forcePathStyle: config.FILES_S3_FORCE_PATH_STYLE,
    keyPrefix: config.FILES_S3_KEY_PREFIX,
    accessKeyId: config.FILES_S3_ACCESS_KEY_ID!,
    secretAccessKey: config.FILES_S3_ACCESS_KEY_SECRET!,
    timeoutMs: config.FILES_S3_TIMEOUT_MS,
  };
}

/** The store `FILES_STORAGE` names, said in the log at start (where, never with what key). */
export function chooseStorage(config: StorageConfig, log: Logger): Storage {
  if (config.FILES_STORAGE === 'disk') {
    log.info({ store: 'disk', root: config.FILES_STORAGE_DIR }, `file storage: local disk at ${config.FILES_STORAGE_DIR}`);
    return new LocalDiskStorage(config.FILES_STORAGE_DIR, log);
  }
  const settings = bucketSettings(config);
  const where = `${settings.endpoint ?? `AWS S3 (${settings.region})`}, bucket ${settings.bucket}${settings.keyPrefix ? `, prefix ${settings.keyPrefix}` : ''}`;
  log.info({ store: 's3', endpoint: settings.endpoint, region: settings.region, bucket: settings.bucket, prefix: settings.keyPrefix }, `file storage: S3-compatible bucket at ${where}`);
  // the S3 client is loaded only for a bucket (ADR 0074): a disk store never parses the AWS SDK
  const { S3Storage } = require('./s3-storage') as typeof import('./s3-storage');
  return new S3Storage(settings, log);
}
