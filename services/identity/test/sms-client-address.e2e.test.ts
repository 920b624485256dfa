import { randomInt } from 'node:crypto';
import { api, type Stack } from '@market/testkit';
import { from, newPhone, startIdentityStack, type Client } from './helpers';

/** A fresh /64 of the documentation prefix, written as its first four groups. */
const newNetwork = () => `2001:db8:${randomInt(0, 0x10000).toString(16)}:${randomInt(0, 0x10000).toString(16)}`;
const newPublicAddress = () => `203.0.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/**
 * Behind an ingress every request arrives from the ingress's address; TRUST_PROXY (here the
 * loopback range the test's requests come from) makes the gateway count the client address the
 * proxy forwarded instead, an IPv6 client as its /64.
 */
describe('per-address SMS limits behind a trusted proxy', () => {
  let stack: Stack;
  let client: Client;

  beforeAll(async () => {
    stack = await startIdentityStack(
      { SMS_DAILY_LIMIT_PER_IP: '3', SMS_DAILY_LIMIT_PER_PHONE: '100' },
      { TRUST_PROXY: 'loopback', RATE_LIMIT_LOGIN_PER_MINUTE: '3' },
    );
    client = api(stack.url);
  });
  afterAll(() => stack.stop());

  const send = (headers: Record<string, string>) => client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, headers);

  it('counts each forwarded client on its own, not every request as the proxy', async () => {
    for (let i = 0; i < 5; i++) expect((await send(from(newPublicAddress()))).status).toBe(200);
  });

  it('takes the address the proxy appended: a client writing X-Forwarded-For itself cannot pick a fresh one', async () => {
    const real = newPublicAddress();
    for (let i = 0; i < 3; i++) expect((await send(from(`${newPublicAddress()}, ${real}`))).status).toBe(200);
    const capped = await send(from(`${newPublicAddress()}, ${real}`));
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('RATE_LIMITED');
  });

  it('counts two IPv6 addresses of one /64 as one client, and another /64 apart', async () => {
    const network = newNetwork();
    expect((await send(from(`${network}::1`))).status).toBe(200);
    expect((await send(from(`${network}:0:0:0:2`))).status).toBe(200);
    expect((await send(from(`${network}:ffff:ffff:ffff:ffff`))).status).toBe(200);
    const capped = await send(from(`${network}:1234::abcd`));
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('RATE_LIMITED');
    expect((await send(from(`${newNetwork()}::1`))).status).toBe(200);
  });

  it("counts the gateway's own login limit per /64 too", async () => {
    const network = newNetwork();
    const tryLogin = (address: string) => client.post('/api/auth/sms/login', { phone: newPhone(), code: '000000' }, undefined, from(address));
    for (const host of ['1', '2', '3']) expect((await tryLogin(`${network}::${host}`)).status).toBe(422);
    const limited = await tryLogin(`${network}::4`);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect((await tryLogin(`${newNetwork()}::1`)).status).toBe(422);
  });
});

describe('the global SMS budget per hour', () => {
  let stack: Stack;
  let client: Client;

  beforeAll(async () => {
    stack = await startIdentityStack({ SMS_HOURLY_BUDGET: '3' }, { TRUST_PROXY: 'loopback' });
    client = api(stack.url);
  });
  afterAll(() => stack.stop());

  it('refuses every further code once spent, from any phone and address, with 429 SMS_BUDGET_SPENT until the hour turns', async () => {
    const hour = () => new Date().toISOString().slice(0, 13);
    const started = hour();
    for (let i = 0; i < 3; i++) expect((await client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, from(newPublicAddress()))).status).toBe(200);
    const phone = newPhone();
    const spent = await client.post('/api/auth/sms/send', { phone }, undefined, from(newPublicAddress()));
    // the budget is per UTC hour: a run that straddled the turn of the hour proves nothing either way
    if (hour() !== started) return;
    expect(spent.status).toBe(429);
    expect(spent.body.code).toBe('SMS_BUDGET_SPENT');
    const retryAfter = Number(spent.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // no code was sent or stored for the refused phone
    const { ctx } = stack.services.identity!;
    expect(await ctx.redis.exists(ctx.redisKey(`identity:sms:code:${phone}`))).toBe(0);
  });
});
