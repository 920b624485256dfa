import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminReadFile, attachFiles, fileMeta, MAX_FILE_BYTES, readFile, uploadFile } from '@market/contracts';
import { ASSERTION_HEADER, type Identity } from '@market/shared/auth';
import { assertionFor } from '@market/shared/testing';
import { anonymous, asAdmin, asUser, startComponent, type Component } from '@market/testkit';
import { v7 as uuidv7 } from 'uuid';
import { LocalDiskStorage } from '../../src/adapters/storage/local-disk-storage';
import { JPEG, PDF, PNG, pngOfSize, WEBP, type Part } from '../samples';
import { startTestS3, type TestS3 } from '../s3-server';

const KEY_PATTERN = /^(listing|handoff|dispute|realname|avatar)\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.(jpg|png|webp|pdf)$/;

// Every behaviour once on each store: the local disk (the default) and an S3-compatible bucket.
describe.each(['disk', 's3'] as const)('files alone (%s store): upload scenes, the bytes judged, private reads and grants, ETags', (store) => {
  let files: Component;
  let storageDir: string;
  let s3: TestS3 | undefined;
  const owner = asUser();
  const stranger = asUser();
  const partyOfOrder = asUser();
  const backOffice = asAdmin();

  function form(file: Part | undefined, fields: Record<string, string> = {}, extraFiles: Record<string, Part> = {}) {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    if (file) body.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.filename);
    for (const [name, part] of Object.entries(extraFiles)) body.append(name, new Blob([part.bytes]), part.filename);
    return body;
  }

  const upload = (as: Identity, file: Part | undefined, fields: Record<string, string> = {}, extraFiles: Record<string, Part> = {}) =>
    files.call(uploadFile, { as, body: form(file, fields, extraFiles) });

  const read = (key: string, as: Identity = anonymous, headers: Record<string, string> = {}) => files.call(readFile, { query: { key }, as, headers });
  const readAsAdmin = (key: string, as: Identity = backOffice) => files.call(adminReadFile, { query: { key }, as });

  async function uploaded(scene: string, part: Part, as = owner): Promise<string> {
    const res = await upload(as, part, { scene });
    expect(res.status).toBe(201);
    return res.body.key;
  }

  const incoming = () => readdirSync(path.join(storageDir, '.incoming'));
  /** the keys of every object in the store under test */
  async function storedKeys(): Promise<string[]> {
    if (s3) return s3.keys();
    const keys: string[] = [];
    for await (const key of new LocalDiskStorage(storageDir).keys()) keys.push(key);
    return keys.sort();
  }
  const db = () => files.service.ctx.db;
  const fileRows = async () => Number((await db().query('select count(*)::int as n from files'))[0].n);

  beforeAll(async () => {
    storageDir = mkdtempSync(path.join(tmpdir(), 'files-component-'));
    s3 = store === 's3' ? await startTestS3() : undefined;
    files = await startComponent('files', { env: { FILES_STORAGE_DIR: storageDir, ...s3?.env } });
  });
  afterEach(() => {
    files.verify();
    // nothing half-received is left behind, whatever the upload's fate
    expect(incoming()).toEqual([]);
  });
  afterAll(async () => {
    await files?.stop();
    await s3?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('accepts a JPG, PNG, WebP and PDF, judged by their bytes, under a generated key', async () => {
    const cases = [
      { part: { bytes: JPEG, filename: 'photo.jpeg', type: 'image/jpeg' }, type: 'image/jpeg', ext: 'jpg' },
      { part: { bytes: PNG, filename: 'shot.bin', type: 'application/octet-stream' }, type: 'image/png', ext: 'png' },
      { part: { bytes: WEBP, filename: 'pic.png', type: 'image/png' }, type: 'image/webp', ext: 'webp' },
      { part: { bytes: PDF, filename: '../../contract.pdf', type: 'text/plain' }, type: 'application/pdf', ext: 'pdf' },
    ];
    for (const { part, type, ext } of cases) {
      const res = await upload(owner, part);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        key: expect.stringMatching(KEY_PATTERN),
        url: `/api/files/object?key=${encodeURIComponent(res.body.key)}`,
        content_type: type,
        size: part.bytes.length,
        scene: 'listing',
      });
      expect(res.body.key.startsWith('listing/')).toBe(true);
      expect(res.body.key.endsWith(`.${ext}`)).toBe(true);
      expect(await storedKeys()).toContain(res.body.key);
      // written private (no ACL: the bucket's) and with the digest the store checks the bytes against
      if (s3) {
        expect(s3.puts().filter((put) => put.key === res.body.key)).toEqual([
          { key: res.body.key, contentMd5: createHash('md5').update(part.bytes).digest('base64'), acl: undefined },
        ]);
      }
    }
    // the bucket store keeps nothing on the disk but the (empty) upload folder
    if (s3) expect(readdirSync(storageDir)).toEqual(['.incoming']);
  });

  it('refuses bytes that are not JPG/PNG/WebP/PDF with 415, whatever the name or declared type, storing nothing', async () => {
    const before = await fileRows();
    const objectsBefore = await storedKeys();
    const refused: Part[] = [
      { bytes: Buffer.from('#!/bin/sh\ncurl evil.example | sh\n'), filename: 'avatar.png', type: 'image/png' },
      { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), filename: 'x.jpg', type: 'image/jpeg' },
      { bytes: Buffer.from('just some words\n'), filename: 'notes.txt', type: 'text/plain' },
      { bytes: Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'), filename: 'scan.pdf', type: 'application/pdf' },
      { bytes: Buffer.alloc(0), filename: 'empty.png', type: 'image/png' },
    ];
    for (const part of refused) {
      const res = await upload(owner, part);
      expect([res.status, res.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
    expect(await fileRows()).toBe(before);
    expect(await storedKeys()).toEqual(objectsBefore);
  });

  it('accepts a file of exactly 10 MB and refuses one byte more with 413, storing nothing', async () => {
    const exact = await upload(owner, { bytes: pngOfSize(MAX_FILE_BYTES), filename: 'big.png' });
    expect(exact.status).toBe(201);
    expect(exact.body.size).toBe(10 * 1024 * 1024);

    expect(await storedKeys()).toContain(exact.body.key);

    const before = await fileRows();
    const objectsBefore = await storedKeys();
    const over = await upload(owner, { bytes: pngOfSize(MAX_FILE_BYTES + 1), filename: 'bigger.png' });
    expect([over.status, over.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(await fileRows()).toBe(before);
    expect(await storedKeys()).toEqual(objectsBefore);
  });

  it('takes the stored bytes back when the row cannot be written: a failed upload leaves no object and no row', async () => {
    const before = await fileRows();
    const objectsBefore = await storedKeys();
    // the database refusing the insert as an unavailable one does (a cancelled statement), after the bytes are stored
    await db().query(`CREATE FUNCTION refuse_files() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = '57014'; END $$`);
    await db().query('CREATE TRIGGER refuse_files BEFORE INSERT ON files FOR EACH ROW EXECUTE FUNCTION refuse_files()');
    try {
      const refused = await upload(owner, { bytes: PNG, filename: 'a.png' });
      expect([refused.status, refused.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    } finally {
      await db().query('DROP TRIGGER refuse_files ON files');
      await db().query('DROP FUNCTION refuse_files()');
    }
    expect(await fileRows()).toBe(before);
    expect(await storedKeys()).toEqual(objectsBefore);
    expect((await upload(owner, { bytes: PNG, filename: 'a.png' })).status).toBe(201);
  });

  it('answers 503 STORAGE_UNAVAILABLE, never 500, while the volume fails, keeps nothing half-written, and serves again once it is back', async () => {
    const key = await uploaded('handoff', { bytes: PNG, filename: 'kept.png' });
    const etag = (await read(key, owner)).headers.get('etag')!;
    const rowsBefore = await fileRows();
    const objectsBefore = await storedKeys();
    const expectRefused = (res: { status: number; body: any; headers: Headers }) => {
      expect([res.status, res.body.code, res.headers.get('retry-after')]).toEqual([503, 'STORAGE_UNAVAILABLE', '5']);
    };
    /** uploads need the volume (they are received on it) with either store; reads only with the disk store */
    const duringOutage = async () => {
      expectRefused(await upload(owner, { bytes: PNG, filename: 'refused.png' }));
      expect(await fileRows()).toBe(rowsBefore);
      // a client's copy is revalidated from the database alone
      expect((await read(key, owner, { 'if-none-match': etag })).status).toBe(304);
      const uncached = await read(key, owner);
      if (store === 'disk') {
        expectRefused(uncached);
        expect(uncached.headers.get('cache-control')).toBe('no-store');
      } else {
        expect(uncached.bytes.equals(PNG)).toBe(true);
      }
    };

    if (store === 'disk') {
      // the volume refusing the store's own write, after the upload was received: the object's folder cannot be made
      const folder = path.join(storageDir, 'realname');
      const aside = `${folder}.aside`;
      const existed = existsSync(folder);
      if (existed) renameSync(folder, aside);
      writeFileSync(folder, '');
      try {
        expectRefused(await upload(owner, { bytes: PNG, filename: 'id.png' }, { scene: 'realname' }));
        expect(await fileRows()).toBe(rowsBefore);
      } finally {
        rmSync(folder);
        if (existed) renameSync(aside, folder);
      }
    }

    const away = `${storageDir}.away`;
    renameSync(storageDir, away);
    try {
      // the volume's folder is a file: every path under it fails for root too (ENOTDIR), as EIO or EROFS would
      writeFileSync(storageDir, '');
      await duringOutage();
      // the volume not there at all (not mounted): an outage still, never an empty store answering 404
      rmSync(storageDir);
      await duringOutage();
    } finally {
      rmSync(storageDir, { force: true });
      renameSync(away, storageDir);
    }

    expect(await storedKeys()).toEqual(objectsBefore);
    expect((await read(key, owner)).bytes.equals(PNG)).toBe(true);
    expect((await upload(owner, { bytes: PNG, filename: 'again.png' })).status).toBe(201);
    if (store === 'disk') {
      // an object missing under a root that is there stays a 404
      rmSync(path.join(storageDir, key));
      expect((await read(key, owner)).status).toBe(404);
    }
  });

  it('refuses malformed uploads with 400 and anonymous or admin callers with 401', async () => {
    const png = { bytes: PNG, filename: 'a.png' };
    const before = await fileRows();
    const missing = await upload(owner, undefined, { scene: 'listing' });
    expect([missing.status, missing.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'file' })]);

    const badScene = await upload(owner, png, { scene: 'secret' });
    expect(badScene.status).toBe(400);
    expect(badScene.body.errors[0].path).toBe('scene');

    expect((await upload(owner, png, { note: 'hi' })).status).toBe(400);
    expect((await upload(owner, png, { file: 'text' })).status).toBe(400);
    expect((await upload(owner, undefined, {}, { picture: png })).status).toBe(400);
    expect((await upload(owner, png, {}, { file: png })).status).toBe(400);
    expect((await upload(owner, png, { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' })).status).toBe(400);
    expect((await files.call(uploadFile, { as: owner, body: { scene: 'listing' } })).status).toBe(400);

    for (const [type, body] of [
      ['multipart/form-data', 'no boundary'],
      ['multipart/form-data; boundary=xyz', 'not multipart at all'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\ncut off'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nno header here\r\n\r\nabc\r\n--xyz--'],
    ]) {
      expect((await files.call(uploadFile, { as: owner, body, headers: { 'content-type': type! } })).status).toBe(400);
    }
    expect(await fileRows()).toBe(before);

    expect((await upload(anonymous, png)).status).toBe(401);
    expect((await upload(backOffice, png)).status).toBe(401);
  });

  it('serves a public file to anyone with its type, nosniff, a lasting cache and an ETag that revalidates', async () => {
    const key = await uploaded('avatar', { bytes: PNG, filename: 'me.png' });
    const res = await read(key);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(PNG.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-disposition')).toBe('inline; filename=me.png');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);

    const fresh = await read(key, anonymous, { 'if-none-match': etag });
    expect([fresh.status, fresh.headers.get('etag'), fresh.bytes.length]).toEqual([304, etag, 0]);
    expect((await read(key, anonymous, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await read(key, anonymous, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await read(key, stranger)).status).toBe(200);
  });

  it('sends a PDF as an attachment with a safe file name', async () => {
    const key = await uploaded('listing', { bytes: PDF, filename: 'docs/租号 "合同"\r\n.html' });
    const res = await read(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="__ __.pdf"; filename*=UTF-8''${encodeURIComponent('租号 合同.pdf')}`);
  });

  it('shows a private file only to its uploader and the users it is attached to; 404 to anyone else', async () => {
    const key = await uploaded('handoff', { bytes: JPEG, filename: 'evidence.jpg' });

    const strangerRead = await read(key, stranger);
    expect([strangerRead.status, strangerRead.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await read(key)).status).toBe(404);
    expect((await read(key, partyOfOrder)).status).toBe(404);

    const own = await read(key, owner);
    expect(own.status).toBe(200);
    expect(own.bytes.equals(JPEG)).toBe(true);
    expect(own.headers.get('cache-control')).toBe('private, no-store');
    expect(own.headers.get('content-disposition')).toMatch(/^inline; /);

    const internal = files.internalAs('orders');
    const grant = { keys: [key], biz_type: 'order', biz_id: uuidv7(), reader_ids: [partyOfOrder.sub] };
    // Orders may repeat the call (a retry, two parties at once): each answer is the same, nothing doubles.
    const answers = await Promise.all([1, 2, 3].map(() => internal.call(attachFiles, { body: grant })));
    expect(answers).toEqual([{ attached: 1 }, { attached: 1 }, { attached: 1 }]);
    expect(await db().query('select reader_id from attachments where key = $1', [key])).toEqual([{ reader_id: partyOfOrder.sub }]);

    const partyRead = await read(key, partyOfOrder);
    expect(partyRead.status).toBe(200);
    expect(partyRead.bytes.equals(JPEG)).toBe(true);
    expect((await read(key, stranger)).status).toBe(404);
  });

  it('refuses to attach files that do not exist, attaching none of the batch', async () => {
    const key = await uploaded('dispute', { bytes: PNG, filename: 'proof.png' });
    const missing = 'dispute/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png';
    const internal = files.internalAs('orders');
    await expect(
      internal.call(attachFiles, { body: { keys: [key, missing, '../x'], biz_type: 'dispute', biz_id: 'd1', reader_ids: [stranger.sub] } }),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: { errors: [{ path: 'keys.1' }, { path: 'keys.2' }] } });
    await expect(internal.call(attachFiles, { body: { keys: [key], biz_type: 'dispute', biz_id: 'd1', reader_ids: ['not-a-uuid'] } })).rejects.toMatchObject({
      status: 400,
    });
    expect((await read(key, stranger)).status).toBe(404);
  });

  it('answers 404 to keys that are not generated keys, such as path traversal, and 400 to no key', async () => {
    await uploaded('listing', { bytes: PNG, filename: 'a.png' });
    const keys = [
      '../../etc/passwd',
      '/etc/passwd',
      'listing/../../../../etc/passwd',
      'listing/2026/11/../../../.incoming/x',
      '.incoming',
      'listing/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png/../../../../../etc/passwd',
      'LISTING/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png',
      'listing/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png',
    ];
    for (const key of keys) {
      expect((await read(key, owner)).status).toBe(404);
      expect((await readAsAdmin(key)).status).toBe(404);
    }
    expect((await files.call(readFile)).status).toBe(400);
  });

  it('lets the back office read any file and audits every read of a private one, in the outbox with the read', async () => {
    const privateKey = await uploaded('realname', { bytes: PNG, filename: 'id-card.png' });
    const publicKey = await uploaded('listing', { bytes: PNG, filename: 'cover.png' });

    const res = await readAsAdmin(privateKey);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect((await readAsAdmin(publicKey)).status).toBe(200);
    expect((await readAsAdmin(privateKey, owner)).status).toBe(401);

    // the audit entry is written in the read's transaction, before the answer: the outbox holds it already
    const audits: Array<{ payload: { data: Record<string, unknown> } }> = await db().query("select payload from outbox where type = 'audit.recorded'");
    const forPrivate = audits.filter((a) => a.payload.data.biz_id === privateKey);
    expect(forPrivate).toHaveLength(1);
    expect(forPrivate[0]!.payload.data).toMatchObject({
      actor_type: 'admin',
      actor_id: backOffice.sub,
      action: 'file.read_private',
      biz_type: 'file',
      result: 'success',
    });
    expect(audits.filter((a) => a.payload.data.biz_id === publicKey)).toHaveLength(0);
    const [published] = await files.awaitPublished('audit.recorded', (e) => e.data.biz_id === privateKey);
    expect(published!.data).toMatchObject({ action: 'file.read_private', actor_id: backOffice.sub });
  });

  it('tells orders and catalog a file’s metadata on the internal route, and no other caller', async () => {
    const key = await uploaded('dispute', { bytes: WEBP, filename: 'chat.webp' });
    const internal = files.internalAs('orders');
    expect(await internal.call(fileMeta, { query: { key } })).toEqual({
      key,
      owner_id: owner.sub,
      scene: 'dispute',
      content_type: 'image/webp',
      size: WEBP.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.stringMatching(/Z$/),
    });
    await expect(internal.call(fileMeta, { query: { key: 'dispute/2026/11/nope.png' } })).rejects.toMatchObject({ status: 404 });
    await expect(internal.call(fileMeta)).rejects.toMatchObject({ status: 400 });
    await expect(files.internalAs('catalog').call(fileMeta, { query: { key } })).resolves.toMatchObject({ key });
    await expect(files.internalAs('admin').call(fileMeta, { query: { key } })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });

    // a user's assertion on an internal route: the route is not there for it
    const asUserDirect = await fetch(`${files.url}/internal/files/meta?key=${encodeURIComponent(key)}`, {
      headers: { [ASSERTION_HEADER]: await assertionFor(owner, { service: 'files', method: 'GET', path: '/internal/files/meta' }) },
    });
    expect(asUserDirect.status).toBe(404);
  });
});
