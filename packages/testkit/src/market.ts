import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EventType, ServiceName } from '@market/contracts';
import { DEV_BOOTSTRAP_PASSWORD } from '@market/admin/testing';
import { checkedFetch, api, eventually, outboxEvents, startStack, type Stack } from './index';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A user logged in through identity's SMS flow, as the market's helpers hand one out. */
export interface MarketCaller {
  id: string;
  token: string;
}

/** Every service an order touches; SMS caps lifted because every test user logs in from one address. */
export async function startMarket(
  opts: {
    orders?: Record<string, string>;
    admin?: Record<string, string>;
    services?: ServiceName[];
    external?: Partial<Record<ServiceName, string>>;
    replicas?: Partial<Record<ServiceName, number>>;
  } = {},
): Promise<Stack> {
  const storage = mkdtempSync(path.join(tmpdir(), 'orders-files-'));
  const stack = await startStack({
    services: opts.services ?? ['identity', 'catalog', 'orders', 'wallet', 'files', 'admin'],
    serviceEnv: {
      identity: { SMS_DAILY_LIMIT_PER_IP: '100000' },
      files: { FILES_STORAGE_DIR: storage },
      orders: { ORDER_SCAN_INTERVAL_MS: '200', SETTINGS_RETRY_MS: '200', ...opts.orders },
      admin: { ...opts.admin },
    },
    external: opts.external,
    replicas: opts.replicas,
  });
  return {
    ...stack,
    async stop() {
      await stack.stop();
      rmSync(storage, { recursive: true, force: true });
    },
  };
}

export type Client = ReturnType<typeof api>;

/**
 * A client's view of the market: real users logged in by SMS, the first admin logged in with its
 * captcha, wallets funded through recharge and the sandbox gateway, listings put online through review.
 */
export class Market {
  readonly client: Client;
  private adminToken: string | null = null;

  constructor(readonly stack: Stack) {
    this.client = api(stack.url);
  }

  async user(): Promise<MarketCaller> {
    const phone = `139${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    const sent = await this.client.post('/api/auth/sms/send', { phone });
    if (sent.status !== 200) throw new Error(`sms send: ${JSON.stringify(sent.body)}`);
    const login = await this.client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
    if (login.status !== 200) throw new Error(`login: ${JSON.stringify(login.body)}`);
    return { id: login.body.user.id, token: login.body.access_token };
  }

  async admin(): Promise<string> {
    if (this.adminToken) return this.adminToken;
    const captcha = await this.client.get('/api/admin/auth/captcha');
    const login = await this.client.post('/api/admin/auth/login', {
      username: 'admin',
      password: DEV_BOOTSTRAP_PASSWORD,
      captcha_id: captcha.body.captcha_id,
      captcha_code: captcha.body.dev_text,
    });
    if (login.status !== 200) throw new Error(`admin login: ${JSON.stringify(login.body)}`);
    this.adminToken = login.body.access_token as string;
    return this.adminToken;
  }

  /** A second back-office admin, customer service (orders, disputes), created by the first and logged in with its own captcha. */
  async anotherAdmin(username: string): Promise<{ id: string; token: string }> {
    const password = `${username}-Passw0rd-long`;
    const created = await this.client.post('/api/admin/admins', { username, nickname: username, password, roles: ['customer_service'] }, await this.admin());
    if (created.status !== 201) throw new Error(`admin create: ${JSON.stringify(created.body)}`);
    const captcha = await this.client.get('/api/admin/auth/captcha');
    const login = await this.client.post('/api/admin/auth/login', {
      username,
      password,
      captcha_id: captcha.body.captcha_id,
      captcha_code: captcha.body.dev_text,
    });
    if (login.status !== 200) throw new Error(`admin login: ${JSON.stringify(login.body)}`);
    return { id: login.body.admin.id, token: login.body.access_token };
  }

  /** Recharges `amount` fen through the sandbox gateway, as a client would, and waits for the credit. */
  async fund(user: MarketCaller, amount: number) {
    const before = (await this.balance(user)).available;
    const started = await this.client.post('/api/wallet/recharge/pay', { amount, channel: 'alipay' }, user.token);
    if (started.status !== 201) throw new Error(`recharge: ${JSON.stringify(started.body)}`);
    const paid = await this.client.post(`/api/payments/sandbox/${started.body.id}/complete`, { status: 'succeeded' });
    if (paid.status !== 200) throw new Error(`sandbox: ${JSON.stringify(paid.body)}`);
    await eventually(() => this.balance(user), (b) => b.available === before + amount);
  }

  async fundedUser(amount: number): Promise<MarketCaller> {
    const user = await this.user();
    await this.fund(user, amount);
    return user;
  }

  /** Uploads a tiny PNG as `user`; private scenes are readable by the uploader only until attached. */
  async upload(user: MarketCaller, scene: 'handoff' | 'dispute'): Promise<{ key: string; url: string }> {
    const form = new FormData();
    form.append('file', new Blob([PNG]), 'evidence.png');
    form.append('scene', scene);
    const res = await checkedFetch(`${this.stack.url}/api/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return (await res.json()) as { key: string; url: string };
  }

  async balance(user: MarketCaller): Promise<{ available: number; frozen: number }> {
    const res = await this.client.get('/api/wallet/balance', user.token);
    if (res.status !== 200) throw new Error(`balance: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** What the wallet has moved into the platform's revenue accounts for one order. */
  async platformFeeOf(orderId: string): Promise<number> {
    const [row] = await this.stack.services.wallet!.ctx.db.query(
      `SELECT COALESCE(sum(amount), 0)::float8 AS fee FROM transfers WHERE order_id = $1 AND biz_type = 'platform_fee'`,
      [orderId],
    );
    return row.fee;
  }

  async approve(listingId: string) {
    const res = await this.client.post(`/api/admin/listings/${listingId}/approve`, {}, await this.admin());
    if (res.status !== 200) throw new Error(`approve: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A listing through review to online: 800 fen an hour, 5000 deposit, 1–24 hours unless overridden. */
  async onlineListing(owner: MarketCaller, overrides: Record<string, unknown> = {}) {
    const created = await this.client.post(
      '/api/listings',
      { title: '王者荣耀 全英雄', game: '王者荣耀', hourly_price: 800, deposit: 5000, min_hours: 1, max_hours: 24, ...overrides },
      owner.token,
    );
    if (created.status !== 201) throw new Error(`listing: ${JSON.stringify(created.body)}`);
    const submitted = await this.client.post(`/api/listings/${created.body.id}/submit-review`, {}, owner.token);
    if (submitted.status !== 200) throw new Error(`submit: ${JSON.stringify(submitted.body)}`);
    return (await this.approve(created.body.id)) as { id: string; owner_id: string };
  }

  /** Changes a system configuration value and waits until orders has applied it. */
  async setConfig(key: string, value: unknown) {
    const res = await this.client.put(`/api/admin/system-configs/${key}`, { value }, await this.admin());
    if (res.status !== 200) throw new Error(`config: ${JSON.stringify(res.body)}`);
    const orders = this.stack.services.orders!.ctx.db;
    await eventually(
      async () => (await orders.query(`SELECT value FROM system_settings WHERE key = $1`, [key]))[0]?.value,
      (stored) => JSON.stringify(stored) === JSON.stringify(value),
    );
  }

  async order(renter: MarketCaller, listingId: string, hours = 3) {
    const res = await this.client.post('/api/orders', { listing_id: listingId, hours }, renter.token);
    if (res.status !== 201) throw new Error(`order: ${JSON.stringify(res.body)}`);
    return res.body as { id: string; status: string; amount: number } & Record<string, any>;
  }

  async status(orderId: string, party: MarketCaller): Promise<string> {
    return (await this.client.get(`/api/orders/${orderId}`, party.token)).body.status;
  }

  /** Posts an order action that must succeed; returns the body. */
  async act(orderId: string, action: string, party: MarketCaller, body: unknown = {}) {
    const res = await this.client.post(`/api/orders/${orderId}/${action}`, body, party.token);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async ordersEvents(type: EventType, orderId: string) {
    return (await outboxEvents(this.stack, 'orders', type)).filter((e) => e.data.order_id === orderId);
  }
}
