import { randomBytes } from 'node:crypto';
import type { ServiceName } from '@market/contracts';
import { loadGatewayConfig } from '@market/gateway/config';
import { startService } from '@market/shared/service';
import { dropBusObjects, dropSchemas, internalKeysFor, provisionTestBroker, serviceAmqpUrl, testBrokerEnv, testEnv, uniqueName } from '@market/shared/testing';
import { DEFINITIONS } from '../src/definitions';

/** The start of one service on `env` with its own signing key (its own schema, dropped afterwards): the error it refused with. */
async function refusal(name: ServiceName, env: NodeJS.ProcessEnv): Promise<string> {
  const schema = uniqueName(`t_${name}_env`);
  try {
    const running = await startService(DEFINITIONS[name], { ...env, ...internalKeysFor(name), AMQP_URL: serviceAmqpUrl(env, name), DB_SCHEMA: schema }).catch((err: Error) => err);
    if (!(running instanceof Error)) {
      await running.stop();
      return `${name} started`;
    }
    return running.message;
  } finally {
    await dropSchemas(String(env.DATABASE_URL), [schema]);
    await dropBusObjects(String(env.AMQP_URL), String(env.EVENTS_EXCHANGE));
  }
}

/** The testkit's environment with NODE_ENV as given: a value, or none at all. */
async function environment(mode: string | undefined, overrides: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  const env = await testEnv(overrides);
  if (mode === undefined) delete env.NODE_ENV;
  else env.NODE_ENV = mode;
  return env;
}

const realSecrets = () => ({
  USER_TOKEN_SECRET: randomBytes(32).toString('hex'),
  ADMIN_TOKEN_SECRET: randomBytes(32).toString('hex'),
  SMS_CODE_SECRET: randomBytes(32).toString('hex'),
  PAYGATE_SECRET: randomBytes(32).toString('hex'),
  ADMIN_BOOTSTRAP_PASSWORD: randomBytes(16).toString('hex'),
  DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
});

/**
 * The development behaviours (published secrets, SMS codes and captcha answers in responses,
 * tokenless open upload, the sandbox payment gateway) need NODE_ENV=development by name: a staging
 * box started with NODE_ENV=test, or with none, runs as production and says what it is missing.
 */
describe.each([
  ['NODE_ENV=test', 'test', 'test'],
  ['NODE_ENV unset', undefined, 'production'],
])('a stack started with %s', (_label, mode, shown) => {
  it('refuses the published development secrets, naming each', async () => {
    const env = await environment(mode);
    expect(() => loadGatewayConfig(env)).toThrow(
      `NODE_ENV is ${shown}, not development: these secrets must be set explicitly: USER_TOKEN_SECRET, ADMIN_TOKEN_SECRET`,
    );
    const named: Array<[ServiceName, string]> = [
      ['identity', 'SMS_CODE_SECRET'],
      ['wallet', 'PAYGATE_SECRET'],
      ['admin', 'ADMIN_BOOTSTRAP_PASSWORD'],
      ['catalog', 'DATA_ENCRYPTION_KEYS'],
    ];
    for (const [service, secret] of named) {
      const message = await refusal(service, env);
      expect(message).toContain(`NODE_ENV is ${shown}, not development: these secrets must be set explicitly:`);
      expect(message).toContain(secret);
    }
  }, 60_000);

  it('with real secrets, refuses every development behaviour at start, naming the setting', async () => {
    const env = await environment(mode, realSecrets());
    // the log SMS provider answers the code in the response; the sandbox verifier passes anyone
    const identity = await refusal('identity', env);
    expect(identity).toContain(`SMS_PROVIDER=log is for development (NODE_ENV is ${shown})`);
    expect(identity).toContain(`REALNAME_VERIFIER=sandbox is for development (NODE_ENV is ${shown})`);
    // dev captchas hand their answer back with the image
    expect(await refusal('admin', env)).toBe(`NODE_ENV is ${shown}, not development: CAPTCHA_MODE must be set to strict`);
    expect(await refusal('catalog', env)).toBe(`NODE_ENV is ${shown}, not development: OPEN_UPLOAD_TOKEN must be set (open uploads would be unauthenticated)`);
    expect(await refusal('wallet', env)).toContain(`PAYGATE_PROVIDER=sandbox is for development (NODE_ENV is ${shown})`);
  }, 120_000);

  it('starts once each is configured as production wants it: strict captchas, an upload token', async () => {
    const env = await environment(mode, { ...realSecrets(), CAPTCHA_MODE: 'strict', OPEN_UPLOAD_TOKEN: randomBytes(24).toString('hex') });
    // as in production, each service connects to the broker as its own user (ADR 0054), on a
    // vhost of its own here since each start drops the topology it finds
    for (const name of ['admin', 'catalog'] as const) {
      const broker = await provisionTestBroker(String(env.AMQP_URL), String(env.EVENTS_EXCHANGE));
      try {
        expect(await refusal(name, { ...env, ...testBrokerEnv(broker) })).toBe(`${name} started`);
      } finally {
        await broker.close();
      }
    }
  }, 120_000);
});
