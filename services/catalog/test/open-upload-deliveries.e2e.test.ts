import { gzipSync } from 'node:zlib';
import { OPEN_UPLOAD_ACCOUNT_EXAMPLE, OpenUploadRecord } from '@market/contracts';
import { DEV_KEYRING, SecretBox, sealedAt } from '@market/shared/crypto';
import { OPEN_UPLOAD_RAW_SEALED } from '../src/persistence/open-upload-repository';
import { api, startStack, type Stack } from '@market/testkit';
import { eventually, newAdmin, newUser, type Caller } from './support';

const TOKEN = 'upload-token-for-tests-0123456789';
const UPLOADER = 'cs_trace';
const LIMIT = 64 * 1024;

/**
 * Every delivery to the open upload is recorded, refused ones included, and the back office
 * traces them through GET /api/admin/open-uploads without ever seeing a credential.
 */
describe('open-upload deliveries, recorded and traced', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let admin: Caller;
  const secret = `s3cret-${Date.now()}`;
  const account = (overrides: Record<string, unknown> = {}) => ({ ...OPEN_UPLOAD_ACCOUNT_EXAMPLE, password: secret, ...overrides });
  const body = (uploaderName: string, data: unknown) => ({ uploadTime: '2026-11-22 18:00:00', uploaderName, data });

  beforeAll(async () => {
    stack = await startStack({
      services: ['catalog', 'admin', 'identity'],
      env: { OPEN_UPLOAD_BODY_LIMIT_BYTES: String(LIMIT) },
      serviceEnv: { catalog: { OPEN_UPLOAD_TOKEN: TOKEN }, admin: { ADMIN_BOOTSTRAP_USERNAME: UPLOADER } },
    });
    client = api(stack.url);
    admin = await newAdmin(stack);
  });
  afterAll(() => stack?.stop());

  const send = (payload: string | Buffer | ReadableStream, headers: Record<string, string> = {}) =>
    client.raw('POST', '/api/open/listing-uploads', {
      body: payload,
      headers: { 'x-upload-token': TOKEN, ...headers },
      ...(payload instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);

  const list = async (query: string) => {
    const res = await client.get(`/api/admin/open-uploads?${query}`, admin.token);
    expect(res.status).toBe(200);
    return res.body as { items: any[]; next_cursor: string | null };
  };

  /** The record of the delivery answered with this response, through the back office. */
  const recordOf = async (res: Response) => {
    const requestId = res.headers.get('x-request-id');
    const found = await eventually(
      () => list('limit=100'),
      (page) => page.items.some((i) => i.request_id === requestId),
    );
    const summary = found.items.find((i) => i.request_id === requestId);
    const detail = await client.get(`/api/admin/open-uploads/${summary.id}`, admin.token);
    expect(detail.status).toBe(200);
    expect(OpenUploadRecord.strict().parse(detail.body)).toBeTruthy();
    expect(JSON.stringify(detail.body)).not.toContain(secret);
    expect(JSON.stringify(summary)).not.toContain(secret);
    return detail.body;
  };

  const sealedBytes = async (id: string) => {
    const [row] = await stack.services.catalog!.ctx.db.query(`SELECT raw_sealed FROM open_uploads WHERE id = $1`, [id]);
    return new SecretBox(DEV_KEYRING).open(row.raw_sealed, sealedAt(OPEN_UPLOAD_RAW_SEALED, id));
  };

  it('keeps fields the account schema does not know with the record and never fails the item for them', async () => {
    const item = account({ level: 30, skins: ['a', 'b'], pwd2: `${secret}-2` });
    const res = await send(JSON.stringify(body(UPLOADER, item)), { 'content-type': 'text/plain' });
    expect(res.status).toBe(201);
    const answer: any = await res.json();
    expect(answer.listings).toHaveLength(1);
    expect(answer.failed).toEqual([]);

    const record = await recordOf(res);
    expect(record).toMatchObject({ outcome: 'accepted', status: 201, code: null, uploader_name: UPLOADER, listing_count: 1 });
    expect(record.redacted_body.data).toMatchObject({ title: item.title, level: '[redacted]', skins: '[redacted]', pwd2: '[redacted]' });
    expect(record.result).toEqual(answer);
    expect(JSON.parse(await sealedBytes(record.id)).data).toMatchObject({ level: 30, skins: ['a', 'b'], pwd2: `${secret}-2` });
  });

  it('fails an item that is not an object alone, by its index, and converts the others', async () => {
    const res = await send(JSON.stringify(body(UPLOADER, [account(), 'acct:pw', 7, null, [account()], account({ title: '第二个' })])));
    expect(res.status).toBe(201);
    const answer: any = await res.json();
    expect(answer.listings).toHaveLength(2);
    expect(answer.failed.map((f: any) => f.index)).toEqual([1, 2, 3, 4]);
    expect(answer.failed[0].errors).toEqual([{ path: '(root)', message: expect.stringContaining('object') }]);
    const record = await recordOf(res);
    expect(record).toMatchObject({ outcome: 'partial', item_count: 6, listing_count: 2 });
    expect(record.redacted_body.data.slice(1, 5)).toEqual(Array(4).fill('[redacted]'));
  });

  it('records a body that is not JSON with its uploader and a masked copy in which the syntax error can be found', async () => {
    const text = `{"uploadTime": "2026-11-22 18:00:00", "uploaderName": "${UPLOADER}", "data": {'password': '${secret}', "title": "x",}}`;
    const res = await send(text, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe('MALFORMED_JSON');
    const record = await recordOf(res);
    expect(record).toMatchObject({ outcome: 'refused', status: 400, code: 'MALFORMED_JSON', uploader_name: UPLOADER, redacted_body: null, item_count: 0 });
    expect(record.redacted_text).toHaveLength(text.length);
    expect(record.redacted_text).toContain(`"uploaderName": "${UPLOADER}"`);
    expect(record.redacted_text).toContain(`"data": {'********': '${secret.replace(/[a-z0-9]/gi, '*')}', "title": "x",}}`);
    expect(await sealedBytes(record.id)).toBe(text);
  });

  it('records a body off the schema with its errors, and one without the token without the token', async () => {
    const invalid = await send(JSON.stringify({ uploaderName: UPLOADER, data: account() }));
    expect(invalid.status).toBe(400);
    const record = await recordOf(invalid);
    expect(record).toMatchObject({ outcome: 'refused', status: 400, code: 'VALIDATION_FAILED', upload_time: null });
    expect(record.errors).toEqual([{ path: 'uploadTime', message: expect.any(String) }]);
    expect(record.redacted_body.data.password).toBe('[redacted]');

    const unauthenticated = await send(JSON.stringify(body(UPLOADER, account())), { 'x-upload-token': 'a-guess-at-the-token' });
    expect(unauthenticated.status).toBe(401);
    const refused = await recordOf(unauthenticated);
    expect(refused).toMatchObject({ outcome: 'refused', status: 401, code: 'UNAUTHENTICATED', uploader_name: UPLOADER });
    expect(JSON.stringify(refused)).not.toContain('a-guess-at-the-token');
  });

  it('ignores an Authorization header the uploader’s software sends, valid or not', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer not-a-token', `Bearer ${newUser().token}`]) {
      const res = await send(JSON.stringify(body(UPLOADER, account())), { authorization });
      expect(res.status).toBe(201);
    }
  });

  it('records a body over the limit by its declared length (refused by the gateway) with its first bytes', async () => {
    const big = JSON.stringify(body(UPLOADER, Array.from({ length: 20 }, () => account({ description: '长'.repeat(4000) }))));
    expect(Buffer.byteLength(big)).toBeGreaterThan(LIMIT);
    const res = await send(big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).code).toBe('PAYLOAD_TOO_LARGE');
    const record = await recordOf(res);
    expect(record).toMatchObject({
      outcome: 'refused',
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      uploader_name: UPLOADER,
      byte_count: Buffer.byteLength(big),
      bytes_truncated: true,
      redacted_body: null,
      ip: expect.any(String),
    });
    const kept = await sealedBytes(record.id);
    expect(big.startsWith(kept.replace(/\ufffd$/, ''))).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(16 * 1024 + 3);
  });

  it('records a body over the limit sent without a length (refused by catalog), and one compressed past the limit', async () => {
    const chunk = new TextEncoder().encode(`{"uploadTime":"2026-11-22 18:00:00","uploaderName":"${UPLOADER}","data":"${'x'.repeat(LIMIT)}"}`);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(chunk.subarray(0, 1000));
        controller.enqueue(chunk.subarray(1000));
        controller.close();
      },
    });
    const chunked = await send(stream);
    expect(chunked.status).toBe(413);
    expect(await recordOf(chunked)).toMatchObject({ status: 413, uploader_name: UPLOADER, byte_count: chunk.length, bytes_truncated: true });

    const bomb = gzipSync(Buffer.from(JSON.stringify(body(UPLOADER, account({ description: ' '.repeat(LIMIT * 2) })))));
    expect(bomb.length).toBeLessThan(LIMIT);
    const compressed = await send(bomb, { 'content-encoding': 'gzip' });
    expect(compressed.status).toBe(413);
    expect(await recordOf(compressed)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });

    const unknownEncoding = await send('abc', { 'content-encoding': 'compress' });
    expect(unknownEncoding.status).toBe(415);
    expect(await recordOf(unknownEncoding)).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });

    const gzipped = await send(gzipSync(Buffer.from(JSON.stringify(body(UPLOADER, account())))), { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(201);
  });

  it('lets the back office trace one uploader’s deliveries by name, outcome and time, in cursor pages', async () => {
    const name = `vendor_${Date.now()}`;
    const started = new Date().toISOString();
    const sent = [
      await send(JSON.stringify(body(name, account()))),
      await send('not json at all', { 'content-type': 'application/json' }),
      await send(JSON.stringify({ ...body(name, account()), uploadTime: 'yesterday' })),
      await send(JSON.stringify(body(name, account())), { 'x-upload-token': 'wrong-token-here-000' }),
    ];
    expect(sent.map((r) => r.status)).toEqual([422, 400, 400, 401]);

    const all = await list(`uploader_name=${name}&limit=100`);
    expect(all.items.map((i) => [i.outcome, i.status, i.code])).toEqual([
      ['refused', 401, 'UNAUTHENTICATED'],
      ['refused', 400, 'VALIDATION_FAILED'],
      ['unmatched', 422, 'UPLOADER_NOT_MATCHED'],
    ]);
    expect((await list(`uploader_name=${name}&outcome=unmatched`)).items).toHaveLength(1);
    expect((await list(`uploader_name=${name}&received_from=${encodeURIComponent(started)}`)).items).toHaveLength(3);
    expect((await list(`uploader_name=${name}&received_to=${encodeURIComponent(started)}`)).items).toHaveLength(0);

    const first = await list(`uploader_name=${name}&limit=2`);
    expect(first.items).toHaveLength(2);
    const second = await list(`uploader_name=${name}&limit=2&cursor=${first.next_cursor}`);
    expect([...first.items, ...second.items].map((i) => i.id)).toEqual(all.items.map((i) => i.id));
    expect(second.next_cursor).toBeNull();

    const refusedEverywhere = await list('outcome=refused&limit=100');
    expect(refusedEverywhere.items.every((i) => i.outcome === 'refused')).toBe(true);
    expect(refusedEverywhere.items.some((i) => i.uploader_name === null && i.code === 'MALFORMED_JSON')).toBe(true);
  });

  it('answers 400 for a bad filter or cursor, 404 for an unknown record, and refuses non-admins', async () => {
    expect((await client.get('/api/admin/open-uploads?outcome=lost', admin.token)).status).toBe(400);
    expect((await client.get('/api/admin/open-uploads?received_from=yesterday', admin.token)).status).toBe(400);
    expect((await client.get('/api/admin/open-uploads?cursor=eyJ2IjoxLCJpZCI6IngifQ', admin.token)).status).toBe(400);
    expect((await client.get('/api/admin/open-uploads/not-an-id', admin.token)).status).toBe(404);
    expect((await client.get('/api/admin/open-uploads/0193a8f2-0000-7000-8000-000000000000', admin.token)).status).toBe(404);
    expect((await client.get('/api/admin/open-uploads', newUser().token)).status).toBe(401);
    expect((await client.get('/api/admin/open-uploads')).status).toBe(401);
  });
});
