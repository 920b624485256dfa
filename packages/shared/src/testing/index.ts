import { execFile } from 'node:child_process';
import { createCipheriv, createPrivateKey, randomBytes } from 'node:crypto';
import { connect } from 'amqplib';
import { Client } from 'pg';
import type { InternalCaller, ServiceName } from '@market/contracts';
import { createAssertionVerifier, GATEWAY_ISSUER, signAssertion, type AssertionVerifier, type Identity } from '../auth/assertion';
import { generateInternalKeySet, internalKeyEnv, parsePublicKeys, type GeneratedKeySet, type SigningKey } from '../auth/internal-keys';
import { DEV_KEYRING } from '../crypto/secret-box';
import { topologyExchanges, topologyQueues, unroutedNames } from '../events/topology';
import { serviceAmqpUrl } from './broker';
import { processRedisUrl } from './redis';

export interface Infra {
  DATABASE_URL: string;
  AMQP_URL: string;
  REDIS_URL: string;
}

const LOCAL: Infra = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

function dockerAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5000 }, (err) => resolve(!err));
  });
}

let infra: Promise<Infra> | null = null;

/**
 * Where the tests' Postgres, RabbitMQ and Redis are: the environment's URLs when set; otherwise
 * containers when a Docker engine answers; otherwise the local services on their standard ports.
 */
export function resolveInfra(): Promise<Infra> {
  infra ??= (async () => {
    const { DATABASE_URL, AMQP_URL, REDIS_URL } = process.env;
    if (DATABASE_URL && AMQP_URL && REDIS_URL) return { DATABASE_URL, AMQP_URL, REDIS_URL };
    if (!(await dockerAnswers())) return { ...LOCAL, ...definedOnly({ DATABASE_URL, AMQP_URL, REDIS_URL }) };
    const [{ PostgreSqlContainer }, { RabbitMQContainer }, { RedisContainer }] = await Promise.all([
      import('@testcontainers/postgresql'),
      import('@testcontainers/rabbitmq'),
      import('@testcontainers/redis'),
    ]);
    const [pg, rabbit, redis] = await Promise.all([
      new PostgreSqlContainer('postgres:15').start(),
      new RabbitMQContainer('rabbitmq:3.13').start(),
      new RedisContainer('redis:7').start(),
    ]);
    return {
      DATABASE_URL: DATABASE_URL ?? pg.getConnectionUri(),
      AMQP_URL: AMQP_URL ?? rabbit.getAmqpUrl(),
      REDIS_URL: REDIS_URL ?? redis.getConnectionUrl(),
    };
  })();
  return infra;
}

function definedOnly(values: Record<string, string | undefined>): Partial<Infra> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v)) as Partial<Infra>;
}

/**
 * The variables that are keys or credentials: whoever holds one can sign, decrypt or log in with
 * it. Each process gets only those it reads (the configuration table in docs/configuration.md, docker-compose.yml).
 */
export const SECRET_VARIABLES = [
  'INTERNAL_SIGNING_KEY',
  'USER_TOKEN_SECRET',
  'ADMIN_TOKEN_SECRET',
  'DATA_ENCRYPTION_KEYS',
  'SMS_CODE_SECRET',
  'PAYGATE_SECRET',
  'ADMIN_BOOTSTRAP_PASSWORD',
  'OPEN_UPLOAD_TOKEN',
] as const;

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

/**
 * The environment for one test file's services: its own database schema(s) and its own event
 * exchange, so test files never see each other's rows or messages.
 */
export async function testEnv(overrides: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  const urls = await resolveInfra();
  return {
    ...urls,
    // Test stacks run on the published development secrets, which only development accepts; their
    // internal identity keys are fresh: every public key here, each process's own private key given
    // by whoever starts it (`internalKeysFor`), so a process started without one fails at once.
    NODE_ENV: 'development',
    INTERNAL_PUBLIC_KEYS: testKeys().publicKeys,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    PORT: '0',
    EVENTS_EXCHANGE: uniqueName('test.events'),
    // Admin passwords hashed at OWASP's minimum for argon2id, the least admin accepts (ADR 0073): the
    // default costs about 0.2 s of CPU per hash or login, and the suites make hundreds of each.
    ADMIN_PASSWORD_MEMORY_KIB: '19456',
    ADMIN_PASSWORD_PASSES: '2',
    // A commit wakes its own process's relay (ADR 0079); the poll finds rows other processes wrote,
    // and at the production default it halves what an idle stack costs the machine.
    OUTBOX_POLL_MS: '1000',
    INBOX_RETRY_BASE_MS: '50',
    // Three suites share two cores (docs/testing.md): an event loop can stall past the production
    // default of 1 s, which a test would read as Redis down. The fault pass keeps the default it tests.
    ...(process.env.MARKET_FAULT_PASS ? {} : { REDIS_COMMAND_TIMEOUT_MS: '5000' }),
    ...overrides,
  };
}

export async function dropSchemas(databaseUrl: string, schemas: string[]) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Removes a test exchange, its alternate exchange, its whole topology and the queues a test declared on it. */
export async function dropBusObjects(amqpUrl: string, exchange: string, queues: string[] = []) {
  const connection = await connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of new Set([...queues, ...topologyQueues(exchange)])) await channel.deleteQueue(queue);
    for (const name of topologyExchanges(exchange)) await channel.deleteExchange(name);
    await channel.deleteExchange(unroutedNames(exchange).exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}

let testKeySet: GeneratedKeySet | undefined;

/**
 * This test process's internal identity keys: a fresh Ed25519 pair per issuer, made at first use,
 * so no test leans on the development keys. The stacks and components a test starts get them
 * (`internalKeysFor`), each process only its own private key.
 */
export function testKeys(): GeneratedKeySet {
  return (testKeySet ??= generateInternalKeySet(`test-${randomBytes(4).toString('hex')}`));
}

/** `INTERNAL_SIGNING_KEY`, `INTERNAL_SIGNING_KEY_ID` and `INTERNAL_PUBLIC_KEYS` of `issuer`, from the test keys. */
export function internalKeysFor(issuer: InternalCaller): Record<string, string> {
  return internalKeyEnv(testKeys(), issuer);
}

/**
 * What one process of `service` runs with in a test environment: the environment, its own internal
 * identity key (ADR 0053), and its own broker and Redis users where the stack made them (ADR 0054).
 * A second replica or a restarted process started by a test needs exactly this, or it would connect
 * as the stack's operator and distrust its neighbours' events.
 */
export function serviceEnv(env: NodeJS.ProcessEnv, service: ServiceName): NodeJS.ProcessEnv {
  return { ...env, ...internalKeysFor(service), AMQP_URL: serviceAmqpUrl(env, service), REDIS_URL: processRedisUrl(env, service) };
}

/** A receiver's check of the test keys' assertions, as `receiver` runs it. */
export function testAssertionVerifier(receiver: ServiceName): AssertionVerifier {
  return createAssertionVerifier(receiver, parsePublicKeys(testKeys().publicKeys));
}

/** A request an assertion is made for: the receiving service, its method and its path (without the query string). */
export interface AssertedRequest {
  service: ServiceName;
  method: string;
  path: string;
}

/**
 * What the gateway (or, for a service identity, that service) would send for `identity` on one
 * request, signed with the test keys, for tests that call a service directly.
 */
export function assertionFor(identity: Identity, request: AssertedRequest, issuedAt?: number): Promise<string> {
  const issuer = identity.kind === 'service' ? identity.sub : GATEWAY_ISSUER;
  return signAssertion(
    identity,
    testSigningKey(issuer),
    { audience: request.service, method: request.method, path: request.path.split('?')[0]! },
    issuedAt,
  );
}

/** The test key `issuer` signs with: what a test acting as a breached process signs with. */
export function testSigningKey(issuer: InternalCaller): SigningKey {
  const { key, kid } = testKeys().signing[issuer];
  return { issuer, kid, key: createPrivateKey({ key: JSON.parse(key), format: 'jwk' }) };
}

/**
 * A value as SecretBox sealed it before values were bound to their place (`v1`, no associated
 * data), under the first key of `keyring`: what rows written before that change hold.
 */
export function sealedInLegacyFormat(plaintext: string, keyring = DEV_KEYRING): string {
  const [kid, material] = keyring.split(',')[0]!.split(':');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(material!, 'base64'), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', kid, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}
export * from './broker';
export * from './redis';
