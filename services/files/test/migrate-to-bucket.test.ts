import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '@market/shared/logging';
import { v7 as uuidv7 } from 'uuid';
import { LocalDiskStorage } from '../src/adapters/storage/local-disk-storage';
import { S3Storage } from '../src/adapters/storage/s3-storage';
import { migrateToBucket } from '../src/application/migrate-to-bucket';
import { StorageUnavailable } from '../src/domain/errors';
import { newFileKey } from '../src/domain/file-key';
import { JPEG, PDF, PNG, WEBP } from './samples';
import { startTestS3, type TestS3 } from './s3-server';

const run = promisify(execFile);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const log = createLogger('files-test', 'silent');

describe('npm run files:migrate-to-bucket: the disk store copied into a bucket', () => {
  let s3: TestS3;
  let bucket: S3Storage;
  let root: string;
  let disk: LocalDiskStorage;
  const objects = new Map<string, Buffer>();
  let lines: string[] = [];
  const report = (line: string) => lines.push(line);

  function storeOnDisk(scene: 'listing' | 'dispute', type: 'image/png' | 'image/jpeg' | 'application/pdf' | 'image/webp', bytes: Buffer): string {
    const key = newFileKey(scene, type, uuidv7(), new Date());
    mkdirSync(path.dirname(path.join(root, key)), { recursive: true });
    writeFileSync(path.join(root, key), bytes);
    objects.set(key, bytes);
    return key;
  }

  async function putInBucket(key: string, bytes: Buffer) {
    const file = path.join(root, '.incoming', 'staged');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    await bucket.put(key, file);
    rmSync(file);
  }

  beforeAll(async () => {
    // a prefix, as when deployments share a bucket: keys are the same under it
    s3 = await startTestS3('market/test/');
    bucket = new S3Storage(s3.settings, log);
    root = mkdtempSync(path.join(tmpdir(), 'files-migrate-'));
    disk = new LocalDiskStorage(root);
  });
  afterAll(async () => {
    bucket?.close();
    await s3?.close();
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    lines = [];
  });

  it('copies what the bucket lacks or holds wrong, verifies each copy, keeps the disk, and a second run copies nothing', async () => {
    const copiedBefore = storeOnDisk('listing', 'image/png', PNG);
    const wrongInBucket = storeOnDisk('dispute', 'image/jpeg', JPEG);
    const absent = storeOnDisk('dispute', 'application/pdf', PDF);
    // not objects: the upload folder and a stray file
    mkdirSync(path.join(root, '.incoming'), { recursive: true });
    writeFileSync(path.join(root, '.incoming', 'half-received'), 'x');
    writeFileSync(path.join(root, 'notes.txt'), 'x');
    await putInBucket(copiedBefore, PNG);
    await putInBucket(wrongInBucket, JPEG.subarray(0, 10));
    // written by another tool, without the SHA-256 in its metadata: judged by its bytes
    const foreignSame = storeOnDisk('listing', 'image/png', PNG);
    const foreignOther = storeOnDisk('listing', 'image/png', Buffer.from(PNG).fill(7, 40));
    await s3.putForeign(`market/test/${foreignSame}`, PNG);
    await s3.putForeign(`market/test/${foreignOther}`, PNG);

    const first = await migrateToBucket(disk, bucket, { deleteSource: false, report });
    const copiedBytes = JPEG.length + PDF.length + PNG.length;
    expect(first).toEqual({ total: 5, copied: 3, present: 2, failed: 0, deleted: 0, bytesCopied: copiedBytes, interrupted: false });
    expect(lines[0]).toBe('5 objects on disk');
    expect(lines.find((line) => line.endsWith(`${absent}: copied (${PDF.length} bytes, verified)`))).toMatch(/^\[[1-5]\/5\] /);
    expect(lines.find((line) => line.endsWith(`${foreignSame}: already in the bucket`))).toMatch(/^\[[1-5]\/5\] /);
    expect(lines.at(-1)).toBe(`summary: 3 copied (${copiedBytes} bytes), 2 already in the bucket, 0 failed, disk copies kept`);
    for (const key of objects.keys()) {
      expect(await bucket.sha256Of(key)).toBe(sha256(objects.get(key)!));
      expect(existsSync(path.join(root, key))).toBe(true);
    }

    const second = await migrateToBucket(disk, bucket, { deleteSource: false, report });
    expect(second).toMatchObject({ total: 5, copied: 0, present: 5, failed: 0 });
  });

  it('stops when the bucket goes away, and the next run resumes where it stopped', async () => {
    const fresh = storeOnDisk('listing', 'image/webp', WEBP);
    await s3.stop();
    try {
      const cut = await migrateToBucket(disk, bucket, { deleteSource: true, report });
      expect(cut).toMatchObject({ failed: 1, deleted: 0, interrupted: true });
      expect(lines).toContain('the bucket is unavailable: stopping here; run the command again to resume');
    } finally {
      await s3.start();
    }
    // nothing was deleted while the bucket was away
    for (const key of objects.keys()) expect(existsSync(path.join(root, key))).toBe(true);

    const resumed = await migrateToBucket(disk, bucket, { deleteSource: false, report });
    expect(resumed).toMatchObject({ total: 6, copied: 1, present: 5, failed: 0, interrupted: false });
    expect(await bucket.sha256Of(fresh)).toBe(sha256(WEBP));
  });

  it('answers only requests signed with the bucket’s secret: a wrong secret and an anonymous read are refused', async () => {
    const [key] = [...objects.keys()];
    const refusedBefore = s3.refusedSignatures();
    const impostor = new S3Storage({ ...s3.settings, secretAccessKey: 'not-the-secret' }, log);
    try {
      await expect(impostor.head(key!)).rejects.toBeInstanceOf(StorageUnavailable);
    } finally {
      impostor.close();
    }
    const anonymous = await fetch(`${s3.endpoint}/${s3.bucket}/market/test/${key}`);
    expect(anonymous.status).toBe(403);
    expect(s3.refusedSignatures()).toBe(refusedBefore + 2);
    // the keys live under the prefix, and only there
    expect(await bucket.head(key!)).toEqual({ size: objects.get(key!)!.length, sha256: sha256(objects.get(key!)!) });
  });

  it('runs as a command: progress, a summary and exit 0; deletes disk copies only when asked; refuses plain http outside development', async () => {
    const command = ['--conditions=@market/source', '--import', 'tsx', path.join(__dirname, '../src/migrate-to-bucket-main.ts')];
    const env = { ...process.env, ...s3.env, FILES_STORAGE: 'disk', FILES_STORAGE_DIR: root, NODE_ENV: 'development' };

    const kept = await run(process.execPath, command, { env });
    expect(kept.stdout).toContain(`from ${root} to bucket ${s3.bucket} (prefix market/test/) at ${s3.endpoint}`);
    expect(kept.stdout).toContain('summary: 0 copied (0 bytes), 6 already in the bucket, 0 failed, disk copies kept');

    const deleted = await run(process.execPath, [...command, '--delete-source'], { env });
    expect(deleted.stdout).toContain('summary: 0 copied (0 bytes), 6 already in the bucket, 0 failed, 6 disk copies deleted');
    for (const [key, bytes] of objects) {
      expect(existsSync(path.join(root, key))).toBe(false);
      expect(await bucket.sha256Of(key)).toBe(sha256(bytes));
    }

    const production = run(process.execPath, command, { env: { ...env, NODE_ENV: 'production' } });
    await expect(production).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('FILES_S3_ENDPOINT must be https outside development (NODE_ENV is production)'),
    });
    const incomplete = run(process.execPath, command, { env: { ...env, FILES_S3_ACCESS_KEY_SECRET: '' } });
    await expect(incomplete).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('the s3 store needs FILES_S3_ACCESS_KEY_SECRET') });
  });
});
