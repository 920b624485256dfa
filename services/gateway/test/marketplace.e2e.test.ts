import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { checkedFetch, api, eventually, startStack, type Stack } from '@market/testkit';

const ADMIN = { username: 'ops_lead', password: 'ops-lead-password-1234' };
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * One story across identity, admin, catalog and files, through the gateway only, as the apps
 * would tell it: nothing here reaches into a service.
 */
describe('the marketplace as its users meet it', () => {
  let stack: Stack;
  const storageDir = mkdtempSync(path.join(tmpdir(), 'market-story-files-'));
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    stack = await startStack({
      services: ['identity', 'admin', 'catalog', 'files'],
      serviceEnv: {
        admin: { ADMIN_BOOTSTRAP_USERNAME: ADMIN.username, ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password },
        files: { FILES_STORAGE_DIR: storageDir },
      },
    });
    client = api(stack.url);
  }, 60_000);
  afterAll(async () => {
    await stack.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  async function adminLogin(): Promise<string> {
    const captcha = await client.get('/api/admin/auth/captcha');
    expect(captcha.status).toBe(200);
    expect(captcha.body.image).toMatch(/^data:image\/svg\+xml/);
    const login = await client.post('/api/admin/auth/login', {
      username: ADMIN.username,
      password: ADMIN.password,
      captcha_id: captcha.body.captcha_id,
      captcha_code: captcha.body.dev_text,
    });
    expect(login.status).toBe(200);
    return login.body.access_token;
  }

  async function userLogin(phone: string) {
    const sent = await client.post('/api/auth/sms/send', { phone });
    expect(sent.status).toBe(200);
    const login = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
    expect(login.status).toBe(200);
    return login.body as { access_token: string; user: { id: string; phone_masked: string } };
  }

  it('an owner lists an account, the back office approves it, renters find it, and a freeze takes it down', async () => {
    const adminToken = await adminLogin();
    const owner = await userLogin(`+86139${String(randomInt(1e8)).padStart(8, '0')}`);
    expect(owner.user.phone_masked).toMatch(/^139\*{4}\d{4}$/);

    const form = new FormData();
    form.append('file', new Blob([PNG]), 'account.png');
    const upload = await checkedFetch(`${stack.url}/api/files/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.access_token}` },
      body: form,
    });
    expect(upload.status).toBe(201);
    const screenshot = ((await upload.json()) as { url: string }).url;

    const created = await client.post(
      '/api/listings',
      { title: '原神 满命 雷电将军', game: '原神', hourly_price: 1200, deposit: 10000, min_hours: 2, screenshot_urls: [screenshot] },
      owner.access_token,
    );
    expect(created.status).toBe(201);
    const listingId = created.body.id;
    expect((await client.get(`/api/listings/${listingId}`)).status).toBe(404);
    expect((await client.post(`/api/listings/${listingId}/submit-review`, {}, owner.access_token)).body.review_status).toBe('pending');

    const pending = await client.get('/api/admin/listings/pending', adminToken);
    expect(pending.body.items.map((l: { id: string }) => l.id)).toContain(listingId);
    const approved = await client.post(`/api/admin/listings/${listingId}/approve`, {}, adminToken);
    expect(approved.body).toMatchObject({ status: 'online', review_status: 'approved' });

    const found = await client.get('/api/listings?game=原神&q=雷电');
    expect(found.body.items.map((l: { id: string }) => l.id)).toEqual([listingId]);
    const image = await checkedFetch(`${stack.url}${screenshot}`);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);

    const frozen = await client.post(`/api/admin/users/${owner.user.id}/freeze`, { reason: 'fraud report' }, adminToken);
    expect(frozen.body.frozen).toBe(true);
    const refused = await client.get('/api/me', owner.access_token);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('USER_FROZEN');
    const offline = await eventually(
      () => client.get(`/api/admin/listings/${listingId}`, adminToken),
      (res) => res.body.status === 'offline',
    );
    expect(offline.body.status).toBe('offline');
    expect((await client.get(`/api/listings/${listingId}`)).status).toBe(404);

    const audit = await eventually(
      () => client.get('/api/admin/audit-logs?limit=100', adminToken),
      (res) => {
        const actions = res.body.items.map((e: { action: string }) => e.action);
        return ['admin.login', 'listing.approve', 'user.freeze', 'auth.login'].every((a) => actions.includes(a));
      },
    );
    expect(audit.body.items.find((e: { action: string }) => e.action === 'user.freeze')).toMatchObject({
      actor_type: 'admin',
      biz_id: owner.user.id,
    });

    const dashboard = await client.get('/api/admin/dashboard', adminToken);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toMatchObject({ users_total: 1, users_frozen: 1, admins_total: 1 });
    expect(dashboard.body.listings_by_status.offline).toBe(1);
  });

  it('software delivers accounts through the open upload, which become listings awaiting review', async () => {
    const adminToken = await adminLogin();
    const accepted = await client.post('/api/open/listing-uploads', {
      uploadTime: '2026-11-22 18:00:00',
      uploaderName: ADMIN.username,
      data: [
        { title: '王者荣耀 V10', game: '王者荣耀', hourly_price: 600, deposit: 3000, account: 'wz-001', password: 's3cret-pass' },
        { title: 'no price', game: '王者荣耀', account: 'wz-002', password: 'x' },
      ],
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body.listings).toHaveLength(1);
    expect(accepted.body.failed).toEqual([expect.objectContaining({ index: 1 })]);
    const listingId = accepted.body.listings[0].id;

    const detail = await client.get(`/api/admin/listings/${listingId}`, adminToken);
    expect(detail.body).toMatchObject({ status: 'draft', review_status: 'pending', screenshot_urls: ['/api/listings/default-upload-screenshot'] });
    expect(JSON.stringify(detail.body)).not.toContain('s3cret-pass');
    const screenshot = await checkedFetch(`${stack.url}/api/listings/default-upload-screenshot`);
    expect(screenshot.headers.get('content-type')).toBe('image/png');

    const unmatched = await client.post('/api/open/listing-uploads', { uploadTime: '2026-11-22 18:00:00', uploaderName: 'nobody', data: {} });
    expect(unmatched.status).toBe(422);
    expect(unmatched.body.code).toBe('UPLOADER_NOT_MATCHED');
  });
});
