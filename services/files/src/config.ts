import path from 'node:path';
import { z } from '@market/contracts';

/** A setting the bucket needs; optional here, required when `FILES_STORAGE=s3` (adapters/storage/choose-storage.ts). */
const bucketSetting = () => z.string().trim().min(1).optional();

export const filesEnvShape = {
  /** where file bytes live: `disk` (under FILES_STORAGE_DIR) or `s3` (an S3-compatible bucket: S3, OSS, COS, MinIO) */
  FILES_STORAGE: z.enum(['disk', 's3']).default('disk'),
  /**
   * root of the local-disk storage; uploads are received in a temporary folder inside it (`.incoming`),
   * which is all the bucket store uses of it
   */
  FILES_STORAGE_DIR: z
    .string()
    .min(1)
    .default('var/files')
    .transform((dir) => path.resolve(dir)),
  /** the bucket's S3 endpoint (`https://oss-cn-hangzhou.aliyuncs.com`); unset: AWS S3's own for the region; `http://` only in development */
  FILES_S3_ENDPOINT: z
    .string()
    .url()
    .refine((value) => /^https?:\/\/[^/?#]+\/?$/.test(value), 'must be http(s)://host[:port] with no path')
    .optional(),
  /** the region the bucket is in, as its S3 endpoint names it (`oss-cn-hangzhou`, `ap-guangzhou`, `us-east-1`) */
  FILES_S3_REGION: bucketSetting(),
  FILES_S3_BUCKET: bucketSetting(),
  /** `true` addresses the bucket in the path (MinIO); virtual-hosted style (`<bucket>.<endpoint>`) otherwise, which OSS and COS require */
  FILES_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** prepended to every object key, so that several deployments can share one bucket (`market/prod/`) */
  FILES_S3_KEY_PREFIX: z
    .string()
    .regex(/^([a-z0-9][a-z0-9._-]*\/)*$/, 'lower-case path segments, each ending with /')
    .default(''),
  /** an access key allowed Get/Put/Delete/HeadObject on the bucket (and nothing else): its id (AWS access key id, Aliyun AccessKey ID, COS SecretId) and secret (secret access key, AccessKey Secret, SecretKey) */
  FILES_S3_ACCESS_KEY_ID: bucketSetting(),
  FILES_S3_ACCESS_KEY_SECRET: bucketSetting(),
  /** longest wait for the bucket to accept a connection or to send more of an answer; past it (after retries) the request gets a 503 */
  FILES_S3_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
};
