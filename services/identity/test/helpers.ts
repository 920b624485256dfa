import { randomInt } from 'node:crypto';
import type { EventType, ServiceName } from '@market/contracts';
import { api, mintToken, outboxEvents as outboxOf, perSuite, startStack, type Component, type Stack } from '@market/testkit';

export type Client = ReturnType<typeof api>;

/** One identity service (and any other `services` named) behind a real gateway; TRUST_PROXY lets each test speak from its own address. */
export async function startIdentityStack(identityEnv: Record<string, string> = {}, env: Record<string, string> = {}, services: ServiceName[] = ['identity']) {
  return startStack({ services, env: { TRUST_PROXY: 'true', ...env }, serviceEnv: { identity: identityEnv } });
}

/** A provider's simulator as a test drives it: the identity settings that point at it, its answer mode, its end. */
export interface ProviderSimulator<Mode extends string> {
  /** signed with the simulator's own secret unless another is given (to test signatures) */
  env(secret?: string): Record<string, string>;
  setMode(mode: Mode): void;
  stop(): Promise<void>;
}

/**
 * An identity stack (with any other `services`) using a provider's simulator (with `identityEnv`
 * besides, and a provider timeout short enough for a test of a stalled provider); stopping the stack
 * stops the simulator too.
 */
export async function startProviderStack(sim: ProviderSimulator<string>, identityEnv: Record<string, string> = {}, services?: ServiceName[]): Promise<Stack> {
  const stack = await startIdentityStack({ ...sim.env(), PROVIDER_TIMEOUT_MS: '1500', ...identityEnv }, {}, services);
  return {
    ...stack,
    async stop() {
      await stack.stop();
      await sim.stop();
    },
  };
}

/**
 * For the tests of the enclosing describe: a provider's simulator (`start` may prepare it), identity
 * pointed at it (`startProviderStack`), both stopped after the tests; the simulator answers normally
 * again before each test.
 */
export function providerStackPerSuite<S extends ProviderSimulator<string>>(
  start: () => Promise<S>,
  identityEnv: Record<string, string>,
  services?: ServiceName[],
): { readonly sim: S; readonly stack: Stack; readonly client: Client } {
  const started = perSuite(
    async () => {
      const sim = await start();
      const stack = await startProviderStack(sim, identityEnv, services);
      return { sim, stack, client: api(stack.url) };
    },
    ({ stack }) => stack.stop(),
  );
  beforeEach(() => started.sim.setMode('ok'));
  return started;
}

/** An admin token of no session: identity's user routes refuse it whatever the gateway knows of admins. */
export const adminToken = () => mintToken('admin');
export const foreignUserToken = () => mintToken('user');

export function newPhone(): string {
  return `139${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

export function newIp(): string {
  return `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

export const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** Lets a test send a second code to a phone without waiting out the 60 s resend interval (in a stack's identity or an identity component). */
export async function forgetResendInterval(where: Stack | Component, phone: string) {
  const { ctx } = 'service' in where ? where.service : where.services.identity!;
  await ctx.redis.del(ctx.redisKey(`identity:sms:resend:${phone}`));
}

export async function sendCode(client: Client, phone: string, ip = newIp()): Promise<string> {
  const res = await client.post('/api/auth/sms/send', { phone }, undefined, from(ip));
  if (res.status !== 200) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.dev_code;
}

export async function logIn(client: Client, phone = newPhone(), ip = newIp()) {
  const code = await sendCode(client, phone, ip);
  const res = await client.post('/api/auth/sms/login', { phone, code }, undefined, from(ip));
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; refresh_token: string; user: { id: string } };
}

/** Events the identity service wrote to its outbox (what the relay publishes), oldest first. */
export function outboxEvents(stack: Stack, type: EventType) {
  return outboxOf(stack, 'identity', type);
}
