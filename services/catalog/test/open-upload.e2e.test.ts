import { listingById, OPEN_UPLOAD_ACCOUNT_EXAMPLE } from '@market/contracts';
import { DEV_KEYRING, SecretBox, sealedAt } from '@market/shared/crypto';
import { api, internalClientAs, startStack, type Stack } from '@market/testkit';
import { LISTING_CREDENTIALS_SEALED } from '../src/persistence/credentials-repository';
import { OPEN_UPLOAD_RAW_SEALED } from '../src/persistence/open-upload-repository';
import { newAdmin, outboxEvents, type Caller } from './support';

const TOKEN = 'upload-token-for-tests-0123456789';
const UPLOADER = 'cs_alice';

const account = (n: number, overrides: Record<string, unknown> = {}) => ({
  ...OPEN_UPLOAD_ACCOUNT_EXAMPLE,
  title: `开放上传 ${n}`,
  account: `acct-${n}-${Date.now()}`,
  password: `pw-${n}-${Math.random().toString(36).slice(2)}`,
  ...overrides,
});

/**
 * Open upload needs the admin service (uploader match) and identity (the publisher user); both
 * run for real in this stack, with an active admin bootstrapped as `cs_alice`.
 */
describe('open upload through the gateway', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let admin: Caller;

  beforeAll(async () => {
    stack = await startStack({
      services: ['catalog', 'admin', 'identity'],
      serviceEnv: { catalog: { OPEN_UPLOAD_TOKEN: TOKEN }, admin: { ADMIN_BOOTSTRAP_USERNAME: UPLOADER } },
    });
    client = api(stack.url);
    admin = await newAdmin(stack);
  });
  afterAll(() => stack?.stop());

  const upload = (body: unknown, token: string | null = TOKEN) =>
    client.post('/api/open/listing-uploads', body, undefined, token === null ? {} : { 'x-upload-token': token });

  const record = async (id: string) => {
    const rows = await stack.services.catalog!.ctx.db.query(`SELECT * FROM open_uploads WHERE id = $1`, [id]);
    return rows[0];
  };
  const recordsOf = (uploaderName: string) =>
    stack.services.catalog!.ctx.db.query(`SELECT * FROM open_uploads WHERE uploader_name = $1 ORDER BY received_at`, [uploaderName]);
  /** The record of a refused delivery, found by the request id the uploader was answered with. */
  const deliveryOf = async (res: { headers: Headers }) => {
    const rows = await stack.services.catalog!.ctx.db.query(`SELECT id FROM open_uploads WHERE request_id = $1`, [res.headers.get('x-request-id')]);
    expect(rows).toHaveLength(1);
    return rows[0].id as string;
  };

  it('turns one account object into a draft / pending listing of the admin’s publisher, with the default screenshot', async () => {
    const item = account(1);
    const res = await upload({ uploadTime: '2026-11-22 17:00:00', uploaderName: UPLOADER, data: item });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      upload_id: expect.any(String),
      listings: [{ id: expect.any(String), status: 'draft', review_status: 'pending' }],
      failed: [],
    });
    const listing = (await client.get(`/api/admin/listings/${res.body.listings[0].id}`, admin.token)).body;
    expect(listing).toMatchObject({
      title: item.title,
      game: item.game,
      server: item.server,
      hourly_price: item.hourly_price,
      deposit: item.deposit,
      min_hours: item.min_hours,
      max_hours: item.max_hours,
      status: 'draft',
      review_status: 'pending',
      screenshot_urls: ['/api/listings/default-upload-screenshot'],
    });
    const queue = await client.get('/api/admin/listings/pending?limit=100', admin.token);
    expect(queue.body.items.map((l: any) => l.id)).toContain(listing.id);
    const [submitted] = await outboxEvents(stack, 'listing.submitted', listing.id);
    expect(submitted.data).toMatchObject({ owner_id: listing.owner_id, status: 'draft', review_status: 'pending' });

    const saved = await record(res.body.upload_id);
    expect(saved).toMatchObject({ uploader_name: UPLOADER, upload_time: '2026-11-22 17:00:00', outcome: 'accepted', item_count: 1, publisher_user_id: listing.owner_id });
    expect(saved.matched_admin_id).toEqual(expect.any(String));
    expect(saved.result).toEqual(res.body);

    const again = await upload({ uploadTime: '2026-11-22T17:05:00Z', uploaderName: UPLOADER, data: account(2) });
    const second = (await client.get(`/api/admin/listings/${again.body.listings[0].id}`, admin.token)).body;
    expect(second.owner_id).toBe(listing.owner_id);
  });

  it('converts an array item by item, reporting the bad ones by index and recording the upload as partial', async () => {
    const items = [account(3), account(4, { hourly_price: 0, color: 'red' }), account(5, { min_hours: 5, max_hours: 2 })].concat([account(6)]);
    const res = await upload({ uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER, data: items });
    expect(res.status).toBe(201);
    expect(res.body.listings).toHaveLength(2);
    expect(res.body.failed.map((f: any) => f.index)).toEqual([1, 2]);
    expect(res.body.failed[0].errors.map((e: any) => e.path)).toEqual(['hourly_price']);
    expect(res.body.failed[1].errors).toEqual([expect.objectContaining({ path: 'max_hours' })]);
    const titles = await Promise.all(res.body.listings.map(async (l: any) => (await client.get(`/api/admin/listings/${l.id}`, admin.token)).body.title));
    expect(titles).toEqual([items[0]!.title, items[3]!.title]);

    const saved = await record(res.body.upload_id);
    expect(saved).toMatchObject({ outcome: 'partial', item_count: 4 });
    expect(saved.redacted.data.map((i: any) => [i.account, i.password, i.extra])).toEqual(
      Array(4).fill(['[redacted]', '[redacted]', '[redacted]']),
    );
    expect(saved.redacted.data[1].color).toBe('[redacted]');
    expect(saved.redacted.data[0].title).toBe(items[0]!.title);
    const raw = JSON.parse(new SecretBox(DEV_KEYRING).open(saved.raw_sealed, sealedAt(OPEN_UPLOAD_RAW_SEALED, res.body.upload_id)));
    expect(raw.data[2].password).toBe(items[2]!.password);
  });

  it('answers 201 with no listings when every item is invalid, and records the upload as rejected', async () => {
    const allBad = await upload({ uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER, data: [{ title: 'x' }, { password: 'p' }] });
    expect(allBad.status).toBe(201);
    expect(allBad.body.listings).toEqual([]);
    expect(allBad.body.failed.map((f: any) => f.index)).toEqual([0, 1]);
    expect((await record(allBad.body.upload_id)).outcome).toBe('rejected');
  });

  it('refuses an upload holding text Postgres cannot store anywhere, before converting any item, and records the refusal', async () => {
    const before = await stack.services.catalog!.ctx.db.query(`SELECT count(*)::int AS n FROM listings`);
    const res = await upload({
      uploadTime: '2026-11-22 18:00:00',
      uploaderName: UPLOADER,
      data: [account(11), account(12, { password: 'p\u0000w' })],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'data.1.password', message: expect.any(String) }]);
    expect((await upload({ uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER, data: { ['bad\u0000key']: 1 } })).status).toBe(400);
    expect((await upload({ uploadTime: '2026-11-22 18:00:00', uploaderName: 'a\u0000b', data: account(13) })).status).toBe(400);
    const after = await stack.services.catalog!.ctx.db.query(`SELECT count(*)::int AS n FROM listings`);
    expect(after[0].n).toBe(before[0].n);
    const saved = await record(await deliveryOf(res));
    expect(saved).toMatchObject({ outcome: 'refused', status: 400, code: 'VALIDATION_FAILED', uploader_name: UPLOADER });
    expect(saved.redacted.data[1].password).toBe('[redacted]');
    expect((await recordsOf('a\ufffdb'))).toHaveLength(1);
  });

  it('refuses an uploader that matches no active admin with 422, still recording the upload', async () => {
    const before = await stack.services.catalog!.ctx.db.query(`SELECT count(*)::int AS n FROM listings`);
    const res = await upload({ uploadTime: '2026-11-22 18:00:00', uploaderName: 'nobody_here', data: account(7) });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('UPLOADER_NOT_MATCHED');
    const rows = await stack.services.catalog!.ctx.db.query(`SELECT * FROM open_uploads WHERE uploader_name = 'nobody_here'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: 'unmatched', matched_admin_id: null, publisher_user_id: null, item_count: 1 });
    expect(rows[0].redacted.data.password).toBe('[redacted]');
    const after = await stack.services.catalog!.ctx.db.query(`SELECT count(*)::int AS n FROM listings`);
    expect(after[0].n).toBe(before[0].n);
  });

  it('requires the configured X-Upload-Token, recording each refusal without the token sent', async () => {
    const body = { uploadTime: '2026-11-22 18:00:00', uploaderName: 'token_test', data: account(8) };
    for (const token of [null, 'wrong-token', `${TOKEN}x`]) {
      const res = await upload(body, token);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    }
    const rows = await recordsOf('token_test');
    expect(rows.map((r: any) => [r.outcome, r.status, r.code])).toEqual(Array(3).fill(['refused', 401, 'UNAUTHENTICATED']));
    expect(JSON.stringify(rows)).not.toContain('wrong-token');
    const listings = await stack.services.catalog!.ctx.db.query(`SELECT 1 FROM listings WHERE open_upload_id = ANY ($1)`, [rows.map((r: any) => r.id)]);
    expect(listings).toHaveLength(0);
    const audits = (await outboxEvents(stack, 'audit.recorded')).filter((e) => e.data.action === 'open_upload.token_refused');
    expect(audits).toHaveLength(3);
    expect(JSON.stringify(audits)).not.toContain('wrong-token');
  });

  it('refuses malformed uploads with 400: over 20 items, an empty array, unknown or missing fields', async () => {
    const base = { uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER };
    for (const body of [
      { ...base, data: Array.from({ length: 21 }, (_, i) => account(100 + i)) },
      { ...base, data: [] },
      { ...base, data: account(9), extra: true },
      { uploaderName: UPLOADER, data: account(9) },
      { ...base, uploadTime: 'yesterday', data: account(9) },
    ]) {
      const res = await upload(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('accepts twenty large accounts in one upload (beyond the ordinary 100 kB body limit)', async () => {
    const extra = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'x'.repeat(1000)]));
    const data = Array.from({ length: 20 }, (_, i) => account(200 + i, { description: '长'.repeat(5000), extra }));
    const body = { uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER, data };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(500 * 1024);
    const res = await upload(body);
    expect(res.status).toBe(201);
    expect(res.body.listings).toHaveLength(20);
  });

  it('never shows credentials in a listing view and never stores them in plaintext', async () => {
    const item = account(10, { extra: { bound_phone: '13912345678' } });
    const res = await upload({ uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER, data: item });
    const id = res.body.listings[0].id;
    const views = [
      (await client.get(`/api/admin/listings/${id}`, admin.token)).body,
      (await client.get('/api/admin/listings?limit=100', admin.token)).body,
      (await client.get('/api/admin/listings/pending?limit=100', admin.token)).body,
      await internalClientAs(stack, 'orders').call(listingById, { params: { id } }),
    ];
    await client.post(`/api/admin/listings/${id}/approve`, {}, admin.token);
    views.push((await client.get(`/api/listings/${id}`)).body, (await client.get('/api/listings?limit=100')).body);
    for (const view of views) {
      const text = JSON.stringify(view);
      for (const secret of [item.account, item.password, '13912345678']) expect(text).not.toContain(secret);
    }

    const db = stack.services.catalog!.ctx.db;
    for (const table of ['listings', 'listing_credentials', 'open_uploads', 'outbox']) {
      const leaks = await db.query(
        `SELECT count(*)::int AS n FROM ${table} t WHERE row_to_json(t)::text LIKE ANY ($1)`,
        [[item.account, item.password, '13912345678'].map((s) => `%${s}%`)],
      );
      expect({ table, leaks: leaks[0].n }).toEqual({ table, leaks: 0 });
    }
    const [{ sealed }] = await db.query(`SELECT sealed FROM listing_credentials WHERE listing_id = $1`, [id]);
    expect(JSON.parse(new SecretBox(DEV_KEYRING).open(sealed, sealedAt(LISTING_CREDENTIALS_SEALED, id)))).toEqual({
      account: item.account,
      password: item.password,
      extra: { bound_phone: '13912345678' },
    });
  });
});

describe('open upload while identity is down', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      services: ['catalog', 'admin'],
      serviceEnv: { catalog: { OPEN_UPLOAD_TOKEN: TOKEN }, admin: { ADMIN_BOOTSTRAP_USERNAME: UPLOADER } },
    });
  });
  afterAll(() => stack?.stop());

  it('answers 503 when the publisher cannot be had, and records the delivery with that answer', async () => {
    const res = await api(stack.url).post(
      '/api/open/listing-uploads',
      { uploadTime: '2026-11-22 18:00:00', uploaderName: UPLOADER, data: account(30) },
      undefined,
      { 'x-upload-token': TOKEN },
    );
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    const rows = await stack.services.catalog!.ctx.db.query(`SELECT * FROM open_uploads WHERE request_id = $1`, [res.headers.get('x-request-id')]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      outcome: 'refused',
      status: 503,
      code: 'UPSTREAM_UNAVAILABLE',
      reason: 'a backing service is unavailable; try again shortly',
      matched_admin_id: expect.any(String),
      publisher_user_id: null,
    });
  });
});
