import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EventType, ServiceName } from '@market/contracts';
import { DEV_BOOTSTRAP_PASSWORD } from '@market/admin/testing';
import { createMarketClient, ok, type MarketClient, type paths, type Realm } from '@market/sdk';
import { checkedFetch, api, eventually, outboxEvents, startStack, type Stack } from './index';

/** The smallest well-formed PNG, for tests that upload a file. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

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

type ConfigValue = NonNullable<paths['/api/admin/system-configs/{key}']['put']['requestBody']>['content']['application/json']['value'];

type OrderActionPath = Extract<keyof paths, `/api/orders/{id}/${string}`>;
/** What follows `/api/orders/{id}/` in an order action's route: `pay`, `checkout/confirm`… */
export type OrderAction = {
  [P in OrderActionPath]: paths[P] extends { post: object } ? (P extends `/api/orders/{id}/${infer A}` ? A : never) : never;
}[OrderActionPath];

/**
 * A client's view of the market: real users logged in by SMS, the first admin logged in with its
 * captcha, wallets funded through recharge and the sandbox gateway, listings put online through review.
 * Its helpers call the API through the typed SDK (one SDK client per token), whose every answer
 * `checkedFetch` holds against the gateway's OpenAPI document; `client` stays for the raw calls a
 * test makes itself (hostile input, exact statuses).
 */
export class Market {
  readonly client: Client;
  private adminToken: string | null = null;
  private readonly sdks = new Map<string, MarketClient>();

  constructor(readonly stack: Stack) {
    this.client = api(stack.url);
  }

  /** The SDK's client for one caller's token, or an anonymous one; answers are checked against the document. */
  sdk(token?: string, realm: Realm = 'user'): MarketClient {
    const key = `${realm} ${token ?? ''}`;
    let client = this.sdks.get(key);
    // a client the SDK signed out (its token refused) is no one's any more
    if (!client || (token && client.tokens()?.accessToken !== token)) {
      client = createMarketClient({ baseUrl: this.stack.url, realm, tokens: token ? { accessToken: token } : null, fetch: (request) => checkedFetch(request) });
      this.sdks.set(key, client);
    }
    return client;
  }

  private async adminSdk(): Promise<MarketClient> {
    return this.sdk(await this.admin(), 'admin');
  }

  async user(): Promise<MarketCaller> {
    const phone = `139${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    const { api: anonymous } = this.sdk();
    const sent = await ok(anonymous.POST('/api/auth/sms/send', { body: { phone } }));
    const login = await ok(anonymous.POST('/api/auth/sms/login', { body: { phone, code: sent.dev_code! } }));
    return { id: login.user.id, token: login.access_token };
  }

  private async adminLogin(username: string, password: string) {
    const { api: anonymous } = this.sdk(undefined, 'admin');
    const captcha = await ok(anonymous.GET('/api/admin/auth/captcha'));
    return ok(anonymous.POST('/api/admin/auth/login', { body: { username, password, captcha_id: captcha.captcha_id, captcha_code: captcha.dev_text! } }));
  }

  async admin(): Promise<string> {
    this.adminToken ??= (await this.adminLogin('admin', DEV_BOOTSTRAP_PASSWORD)).access_token;
    return this.adminToken;
  }

  /** A second back-office admin, customer service (orders, disputes), created by the first and logged in with its own captcha. */
  async anotherAdmin(username: string): Promise<{ id: string; token: string }> {
    const password = `${username}-Passw0rd-long`;
    const { api: lead } = await this.adminSdk();
    await ok(lead.POST('/api/admin/admins', { body: { username, nickname: username, password, roles: ['customer_service'] } }));
    const login = await this.adminLogin(username, password);
    return { id: login.admin.id, token: login.access_token };
  }

  /** Recharges `amount` fen through the sandbox gateway, as a client would, and waits for the credit. */
  async fund(user: MarketCaller, amount: number) {
    const before = (await this.balance(user)).available;
    const started = await ok(this.sdk(user.token).api.POST('/api/wallet/recharge/pay', { body: { amount, channel: 'alipay' } }));
    await ok(this.sdk().api.POST('/api/payments/sandbox/{id}/complete', { params: { path: { id: started.id } }, body: { status: 'succeeded' } }));
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
    form.append('file', new Blob([TINY_PNG]), 'evidence.png');
    form.append('scene', scene);
    // the form goes out as it is: openapi-fetch passes a FormData body through with its own boundary
    const uploaded = await ok(this.sdk(user.token).api.POST('/api/files/upload', { body: form as never }));
    return { key: uploaded.key, url: uploaded.url };
  }

  async balance(user: MarketCaller): Promise<{ available: number; frozen: number }> {
    return ok(this.sdk(user.token).api.GET('/api/wallet/balance'));
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
    return ok((await this.adminSdk()).api.POST('/api/admin/listings/{id}/approve', { params: { path: { id: listingId } }, body: {} }));
  }

  /** A listing through review to online: 800 fen an hour, 5000 deposit, 1–24 hours unless overridden. */
  async onlineListing(owner: MarketCaller, overrides: Record<string, unknown> = {}) {
    const { api: sdk } = this.sdk(owner.token);
    const body = { title: '王者荣耀 全英雄', game: '王者荣耀', hourly_price: 800, deposit: 5000, min_hours: 1, max_hours: 24, ...overrides };
    const created = await ok(sdk.POST('/api/listings', { body }));
    await ok(sdk.POST('/api/listings/{id}/submit-review', { params: { path: { id: created.id } }, body: {} }));
    return this.approve(created.id);
  }

  /** Changes a system configuration value and waits until orders has applied it. */
  async setConfig(key: string, value: ConfigValue) {
    await ok((await this.adminSdk()).api.PUT('/api/admin/system-configs/{key}', { params: { path: { key } }, body: { value } }));
    const orders = this.stack.services.orders!.ctx.db;
    await eventually(
      async () => (await orders.query(`SELECT value FROM system_settings WHERE key = $1`, [key]))[0]?.value,
      (stored) => JSON.stringify(stored) === JSON.stringify(value),
    );
  }

  async order(renter: MarketCaller, listingId: string, hours = 3) {
    const order = await ok(this.sdk(renter.token).api.POST('/api/orders', { body: { listing_id: listingId, hours } }));
    // as loose as the tests have always read it (`deadline_at` is set while a deadline runs)
    return order as { id: string; status: string; amount: number } & Record<string, any>;
  }

  async status(orderId: string, party: MarketCaller): Promise<string> {
    return (await ok(this.sdk(party.token).api.GET('/api/orders/{id}', { params: { path: { id: orderId } } }))).status;
  }

  /** Posts an order action that must succeed (its problem is thrown as an ApiProblem); returns the body. */
  async act(orderId: string, action: OrderAction, party: MarketCaller, body: unknown = {}): Promise<any> {
    const path: `/api/orders/{id}/${OrderAction}` = `/api/orders/{id}/${action}`;
    // one call for every action: each route's own body type is the test's to get right, the document checks the answer
    return ok(this.sdk(party.token).api.POST(path, { params: { path: { id: orderId } }, body } as never));
  }

  async ordersEvents(type: EventType, orderId: string) {
    return (await outboxEvents(this.stack, 'orders', type)).filter((e) => e.data.order_id === orderId);
  }
}
