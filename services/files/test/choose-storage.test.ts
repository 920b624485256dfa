import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { baseEnvShape, ConfigError, loadConfig } from '@market/shared/config';
import { createLogger } from '@market/shared/logging';
import { bucketConfigFaults, chooseStorage } from '../src/adapters/storage/choose-storage';
import { LocalDiskStorage } from '../src/adapters/storage/local-disk-storage';
import { S3Storage } from '../src/adapters/storage/s3-storage';
import { filesEnvShape } from '../src/config';

const SECRET = 'wJalrXUtnFEMI-the-bucket-secret';
const bucketEnv = {
  FILES_STORAGE: 's3',
  FILES_S3_ENDPOINT: 'https://oss-cn-hangzhou.aliyuncs.com',
  FILES_S3_REGION: 'oss-cn-hangzhou',
  FILES_S3_BUCKET: 'market-files',
  FILES_S3_ACCESS_KEY_ID: 'LTAI-key-id',
  FILES_S3_ACCESS_KEY_SECRET: SECRET,
};
const configOf = (env: Record<string, string>) => loadConfig({ NODE_ENV: baseEnvShape.NODE_ENV, ...filesEnvShape }, env);

describe('choosing the file store from the environment', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'files-choose-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function chosen(env: Record<string, string>) {
    const logFile = path.join(dir, `${Math.random()}.log`);
    const storage = chooseStorage(configOf(env), createLogger('files', 'info', logFile));
    const lines = readFileSync(logFile, 'utf8');
    if (storage instanceof S3Storage) storage.close();
    return { storage, lines };
  }

  it('keeps the local disk by default and says so', () => {
    const { storage, lines } = chosen({ FILES_STORAGE_DIR: dir });
    expect(storage).toBeInstanceOf(LocalDiskStorage);
    expect(lines).toContain(`file storage: local disk at ${dir}`);
  });

  it('uses the bucket when FILES_STORAGE=s3, says which, and never logs the secret', () => {
    const { storage, lines } = chosen({ ...bucketEnv, FILES_S3_KEY_PREFIX: 'market/prod/', NODE_ENV: 'production' });
    expect(storage).toBeInstanceOf(S3Storage);
    expect(lines).toContain('file storage: S3-compatible bucket at https://oss-cn-hangzhou.aliyuncs.com, bucket market-files, prefix market/prod/');
    expect(lines).not.toContain(SECRET);
    expect(lines).not.toContain('LTAI-key-id');
  });

  it('refuses incomplete bucket settings in any environment, naming each, and a plain-http endpoint outside development', () => {
    expect(bucketConfigFaults(configOf({ FILES_STORAGE: 's3', FILES_S3_BUCKET: 'b', NODE_ENV: 'development' }))).toEqual([
      'the s3 store needs FILES_S3_REGION, FILES_S3_ACCESS_KEY_ID, FILES_S3_ACCESS_KEY_SECRET (each as X or as a file in X_FILE)',
    ]);
    const plainHttp = { ...bucketEnv, FILES_S3_ENDPOINT: 'http://minio.internal:9000' };
    expect(bucketConfigFaults(configOf({ ...plainHttp, NODE_ENV: 'development' }))).toEqual([]);
    for (const mode of ['production', 'test', 'staging']) {
      expect(bucketConfigFaults(configOf({ ...plainHttp, NODE_ENV: mode }))).toEqual([`FILES_S3_ENDPOINT must be https outside development (NODE_ENV is ${mode})`]);
    }
    expect(() => chosen({ ...plainHttp })).toThrow(ConfigError);
    // AWS S3 itself needs no endpoint: the SDK's is https
    const { FILES_S3_ENDPOINT: _, ...aws } = bucketEnv;
    expect(bucketConfigFaults(configOf({ ...aws, NODE_ENV: 'production' }))).toEqual([]);
  });

  it('reads the credentials from files, as mounted secrets are', () => {
    const secretFile = path.join(dir, 'secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    const { FILES_S3_ACCESS_KEY_SECRET: _, ...rest } = bucketEnv;
    expect(configOf({ ...rest, FILES_S3_ACCESS_KEY_SECRET_FILE: secretFile }).FILES_S3_ACCESS_KEY_SECRET).toBe(SECRET);
    expect(() => configOf({ ...bucketEnv, FILES_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(ConfigError);
    expect(() => configOf({ ...bucketEnv, FILES_S3_KEY_PREFIX: 'no-trailing-slash' })).toThrow(ConfigError);
    expect(() => configOf({ ...bucketEnv, FILES_S3_ENDPOINT: 'https://oss.example/path' })).toThrow(ConfigError);
  });
});
