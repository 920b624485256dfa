import { randomInt } from 'node:crypto';
import { eventually, startStack, type Stack } from '@market/testkit';
import { ApiProblem, createMarketClient, items, ok, pages, type MarketClient, type Tokens } from '../src';

const ADMIN = { username: 'sdk_ops', password: 'sdk-ops-password-1234' };
const phone = () => `136${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

/** The SDK against a real stack: a renter's flow, token rotation, problems, idempotency and cursors. */
describe('the SDK against the real API', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      services: ['identity', 'admin', 'catalog', 'orders', 'wallet'],
      serviceEnv: { admin: { ADMIN_BOOTSTRAP_USERNAME: ADMIN.username, ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password } },
    });
  }, 90_000);
  afterAll(() => stack.stop());

  async function user(onTokens?: (tokens: Tokens | null) => void): Promise<{ market: MarketClient; id: string }> {
    const market = createMarketClient({ baseUrl: stack.url, onTokens });
    const number = phone();
    const sent = await ok(market.api.POST('/api/auth/sms/send', { body: { phone: number } }));
    const login = await ok(market.api.POST('/api/auth/sms/login', { body: { phone: number, code: sent.dev_code! } }));
    market.signIn({ accessToken: login.access_token, refreshToken: login.refresh_token });
    return { market, id: login.user.id };
  }

  async function admin(username = ADMIN.username, password = ADMIN.password): Promise<MarketClient & { signedOut: ApiProblem[] }> {
    const signedOut: ApiProblem[] = [];
    const market = createMarketClient({ baseUrl: stack.url, realm: 'admin', onSignedOut: (p) => signedOut.push(p) });
    const captcha = await ok(market.api.GET('/api/admin/auth/captcha'));
    const login = await ok(
      market.api.POST('/api/admin/auth/login', { body: { username, password, captcha_id: captcha.captcha_id, captcha_code: captcha.dev_text! } }),
    );
    market.signIn({ accessToken: login.access_token });
    return Object.assign(market, { signedOut });
  }

  async function onlineListing(owner: MarketClient, back: MarketClient, title: string) {
    const listing = await ok(
      owner.api.POST('/api/listings', { body: { title, game: 'sdk-game', hourly_price: 500, deposit: 2000, min_hours: 1, max_hours: 24 } }),
    );
    await ok(owner.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: listing.id } }, body: {} }));
    await ok(back.api.POST('/api/admin/listings/{id}/approve', { params: { path: { id: listing.id } }, body: {} }));
    return listing;
  }

  it('carries a renter from login through recharge to a paid order', async () => {
    const back = await admin();
    const owner = await user();
    const renter = await user();
    const listing = await onlineListing(owner.market, back, 'SDK 王者荣耀 V8');

    const payment = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 10_000, channel: 'alipay' } }));
    await ok(renter.market.api.POST('/api/payments/sandbox/{id}/complete', { params: { path: { id: payment.id } }, body: { status: 'succeeded' } }));
    await eventually(
      () => ok(renter.market.api.GET('/api/wallet/balance')),
      (balance) => balance.available === 10_000,
    );

    const order = await ok(renter.market.api.POST('/api/orders', { body: { listing_id: listing.id, hours: 2 } }));
    expect(order).toMatchObject({ status: 'pending_payment', rent: 1000, deposit: 2000, amount: 3000 });
    const paid = await ok(renter.market.api.POST('/api/orders/{id}/pay', { params: { path: { id: order.id } }, body: {} }));
    expect(paid.status).toBe('pending_handoff');
    const balance = await ok(renter.market.api.GET('/api/wallet/balance'));
    expect(balance.available).toBe(7_000);
    const mine = await ok(renter.market.api.GET('/api/orders', { params: { query: { role: 'renter' } } }));
    expect(mine.items.map((o) => o.id)).toEqual([order.id]);
  });

  it('throws problems as ApiProblem with code, status and detail', async () => {
    const renter = await user();
    const refused = await ok(renter.market.api.POST('/api/orders', { body: { listing_id: 'nope', hours: 1 } })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((refused as ApiProblem).detail).toEqual(expect.any(String));
    const invalid = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 1, channel: 'alipay' } })).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect((invalid as ApiProblem).errors.map((e) => e.path)).toContain('amount');
  });

  it('refreshes once on a 401, rotating the pair, even for calls racing each other', async () => {
    const seen: Array<Tokens | null> = [];
    const renter = await user((tokens) => seen.push(tokens));
    const first = renter.market.tokens()!;
    // An access token the gateway refuses (as an expired one would be) makes every call answer 401.
    renter.market.signIn({ accessToken: `${first.accessToken}x`, refreshToken: first.refreshToken });
    const answers = await Promise.all([1, 2, 3].map(() => ok(renter.market.api.GET('/api/me'))));
    expect(answers.map((me) => me.id)).toEqual([renter.id, renter.id, renter.id]);
    const rotated = renter.market.tokens()!;
    expect(rotated.refreshToken).not.toBe(first.refreshToken);
    // one rotation only: the sign-in, the forced token, and exactly one refreshed pair
    expect(seen.filter((t) => t?.refreshToken === rotated.refreshToken)).toHaveLength(1);

    // The rotated-away refresh token is dead: the session ends and the SDK signs out.
    const signedOut: ApiProblem[] = [];
    const stale = createMarketClient({ baseUrl: stack.url, tokens: { accessToken: 'bad', refreshToken: first.refreshToken }, onSignedOut: (p) => signedOut.push(p) });
    const failed = await ok(stale.api.GET('/api/me')).catch((e: unknown) => e);
    expect(failed).toMatchObject({ status: 401 });
    expect(signedOut).toHaveLength(1);
    expect(stale.tokens()).toBeNull();
  });

  it('signs out an admin whose account is disabled, at the next call', async () => {
    const lead = await admin();
    await ok(lead.api.POST('/api/admin/admins', { body: { username: 'sdk_temp', nickname: 'Temp', password: 'temp-admin-password-1' } }));
    const temp = await admin('sdk_temp', 'temp-admin-password-1');
    expect((await ok(temp.api.GET('/api/admin/me'))).username).toBe('sdk_temp');
    const created = (await ok(lead.api.GET('/api/admin/admins'))).items.find((a) => a.username === 'sdk_temp')!;
    await ok(lead.api.POST('/api/admin/admins/{id}/disable', { params: { path: { id: created.id } }, body: {} }));
    const refused = await ok(temp.api.GET('/api/admin/listings/pending')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(temp.signedOut).toHaveLength(1);
    expect(temp.tokens()).toBeNull();
  });

  it('adds an Idempotency-Key where the operation accepts one, and keeps a given one', async () => {
    const renter = await user();
    const given = `sdk-${randomInt(1e9)}`;
    const once = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 500, channel: 'alipay' }, headers: { 'idempotency-key': given } }));
    const again = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 500, channel: 'alipay' }, headers: { 'idempotency-key': given } }));
    expect(again.id).toBe(once.id);
    const fresh = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 500, channel: 'alipay' } }));
    const other = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 500, channel: 'alipay' } }));
    expect(new Set([once.id, fresh.id, other.id]).size).toBe(3);

    const sent: string[] = [];
    const spy = createMarketClient({
      baseUrl: stack.url,
      tokens: renter.market.tokens(),
      fetch: (request) => {
        sent.push(request.headers.get('idempotency-key') ?? '');
        return fetch(request);
      },
    });
    await ok(spy.api.POST('/api/wallet/recharge/pay', { body: { amount: 500, channel: 'alipay' } }));
    await ok(spy.api.GET('/api/wallet/balance'));
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toBe('');
  });

  it('iterates cursor pages to the end', async () => {
    const back = await admin();
    const owner = await user();
    const created = new Set<string>();
    for (let i = 0; i < 5; i++) created.add((await onlineListing(owner.market, back, `SDK paging ${i}`)).id);
    const game = 'sdk-game';
    const seen: string[][] = [];
    for await (const page of pages((cursor) => ok(owner.market.api.GET('/api/listings', { params: { query: { game, q: 'paging', limit: 2, cursor } } })))) {
      seen.push(page.map((l) => l.id));
    }
    expect(seen.map((p) => p.length)).toEqual([2, 2, 1]);
    const all: string[] = [];
    for await (const listing of items((cursor) => ok(owner.market.api.GET('/api/listings', { params: { query: { game, q: 'paging', limit: 2, cursor } } })))) {
      all.push(listing.id);
    }
    expect(new Set(all)).toEqual(created);
  });
});
