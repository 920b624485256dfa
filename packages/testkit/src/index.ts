import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import { type AdminRole, type EventData, type EventType, type ServiceName } from '@market/contracts';
import { signAccessToken, type Realm } from '@market/shared/auth';
import { tokenSecretShape, serviceUrls } from '@market/shared/config';
import type { DomainEvent } from '@market/shared/events';
import { InternalClient } from '@market/shared/http';
import { createLogger } from '@market/shared/logging';
import { connectRedis, type RedisClient } from '@market/shared/redis';
import { startService, type RunningService } from '@market/shared/service';
import {
  assertionFor,
  dropSchemas,
  internalKeysFor,
  processRedisUrl,
  leaseTestBroker,
  provisionTestRedis,
  serviceEnv,
  testBrokerEnv,
  testEnv,
  testRedisEnv,
  uniqueName,
  type TestBroker,
} from '@market/shared/testing';
import { createGateway } from '@market/gateway/app';
import { loadGatewayConfig } from '@market/gateway/config';
import { createGatewayMetrics } from '@market/gateway/metrics';
import { insertAdmin, insertAdminSession } from '@market/admin/testing';
import { DEFINITIONS } from './definitions';
import { eventually } from './eventually';
import { publishOnExchange } from './component/event-bus';
import { closeOnTeardown } from './leftovers';
import { readBody } from './read-body';
import { freePort } from './processes';
import { checkedFetch, forgetGateway, registerGateway } from './openapi-check';

export { closeLeftovers, closeOnTeardown } from './leftovers';
export { DEFINITIONS } from './definitions';
export { eventually } from './eventually';
// Component tests: one service, its neighbours faked at the contracts (ADR 0045).
export { ContractViolations, startComponent, type Component, type ComponentOptions } from './component/start-component';
export { answer, FakeNeighbours, Refusal, refuse, type Answer, type AnswerFn, type NeighbourCall } from './component/fake-neighbours';
export { anonymous, asAdmin, asUser, ContractBreach, directCaller, type DirectAnswer, type DirectCall } from './component/direct-calls';
export { EventTap, publishRawAs, type RawMessage } from './component/event-bus';
export { checkAnswer, checkedFetch, DocumentCheck, OpenApiMismatch } from './openapi-check';
export { Market, startMarket, TINY_PNG, type Client, type MarketCaller, type OrderAction } from './market';
export { componentPerSuite, marketPerSuite, perSuite, stackPerSuite, unhandledRejections, type SuiteMarket, type SuiteStack } from './per-suite';
export { capturedLog, temporaryFolder, type CapturedLog } from './temporary-files';
export { runProgram } from './run-program';
export { orderEventData, ORDER_SETTLEMENT } from './order-events';
export { adminCaptcha, adminLogin, adminLoginToken } from './admin-login';
// Other services' internals a test may need, only through their package entries: seeding admins, the
// money and ledger checks, the dashboard's figures to compare against.
export { Argon2Passwords, createAdmin, DEV_BOOTSTRAP_PASSWORD, MINIMUM_PASSWORD_COST, verifyMoney } from '@market/admin/testing';
export { ORDER_FIGURES_SQL, ORDERS_BY_DAY_SQL } from '@market/orders/testing';
export { findLedgerDifferences, LEDGER_BY_DAY_SQL, LEDGER_FIGURES_SQL } from '@market/wallet/testing';

export interface Stack {
  /** base URL of the gateway, e.g. http://127.0.0.1:41234 */
  url: string;
  /** the gateway's metrics, on their own port as in production: `${gatewayMetricsUrl}/metrics` */
  gatewayMetricsUrl: string;
  env: NodeJS.ProcessEnv;
  /** the first (or only) process of each service */
  services: Partial<Record<ServiceName, RunningService<any>>>;
  /** every process of each service (several where `replicas` asked for them) */
  replicas: Partial<Record<ServiceName, Array<RunningService<any>>>>;
  /** Redis as the test's own inspector (the URL's user, every key); the gateway and each service have users of their own (ADR 0054) */
  redis: RedisClient;
  /** the stack's own vhost, its admin and a user per service (ADR 0054) */
  broker: TestBroker;
  stop(): Promise<void>;
}

const START_ATTEMPTS = 5;

const isAddressInUse = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

export interface StackOptions {
  services: ServiceName[];
  /** environment for every service and the gateway */
  env?: Record<string, string>;
  /** extra environment for one service */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** base URLs of services the test runs itself, outside the stack (see `spawnService`) */
  external?: Partial<Record<ServiceName, string>>;
  /**
   * processes of a service (default 1), started together on one schema, each with its own port,
   * relay, consumer and jobs; the gateway and the other services take them in turn
   */
  replicas?: Partial<Record<ServiceName, number>>;
}

/**
 * `step`, named on stderr when it has not ended after 15 s: a stop that hangs until jest's hook
 * timeout otherwise says nothing of which part of the stack held it.
 */
async function namedWhenSlow<T>(label: string, step: Promise<T>): Promise<T> {
  const timer = setTimeout(() => process.stderr.write(`[testkit] ${label} has not ended after 15 s\n`), 15_000);
  try {
    return await step;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the named services in-process, each in its own fresh schema, all on one fresh exchange
 * and Redis key prefix, behind a real gateway: tests talk HTTP to `stack.url` as a client would.
 * Services not started answer as down (the gateway returns 503).
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(opts);
    } catch (err) {
      if (!isAddressInUse(err) || attempt === START_ATTEMPTS) throw err;
    }
  }
}

async function startStackOnce(opts: StackOptions): Promise<Stack> {
  const base = await testEnv({
    REDIS_KEY_PREFIX: `${uniqueName('t')}:`,
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_SMS_PER_MINUTE: '100000',
    RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
    RATE_LIMIT_OPEN_UPLOAD_PER_MINUTE: '100000',
    // a test stack stops at once; the drain test runs real processes with the default grace
    SHUTDOWN_GRACE_MS: '0',
    ...opts.env,
  });
  // A vhost of the worker's (emptied, reused) with a broker user per service, as production has them: the broker's refusals are real.
  const broker = await leaseTestBroker(String(base.AMQP_URL), String(base.EVENTS_EXCHANGE));
  // and a Redis user per process, restricted to its keys
  const redisUsers = await provisionTestRedis(String(base.REDIS_URL), String(base.REDIS_KEY_PREFIX)).catch(async (err) => {
    await broker.close();
    throw err;
  });
  Object.assign(base, testBrokerEnv(broker), testRedisEnv(redisUsers));
  const ports: Partial<Record<ServiceName, number[]>> = {};
  const taken = new Set<number>();
  for (const name of opts.services) {
    ports[name] = [];
    for (let i = 0; i < (opts.replicas?.[name] ?? 1); i++) {
      const port = await freePort(taken);
      taken.add(port);
      ports[name].push(port);
    }
  }
  const urls = Object.fromEntries(
    (Object.keys(DEFINITIONS) as ServiceName[]).map((name) => [
      `${name.toUpperCase()}_URL`,
      // Port 1: nothing listens there, so a service not started answers as down.
      ports[name] ? ports[name].map((port) => `http://127.0.0.1:${port}`).join(',') : 'http://127.0.0.1:1',
    ]),
  );
  const external = Object.fromEntries(Object.entries(opts.external ?? {}).map(([name, url]) => [`${name.toUpperCase()}_URL`, url]));
  const env = { ...base, ...urls, ...external };
  const schemas: string[] = [];
  const services: Stack['services'] = {};
  const replicas: Stack['replicas'] = {};
  let redis: RedisClient | undefined;
  let gatewayRedis: RedisClient | undefined;
  let server: Server | undefined;
  let metricsServer: Server | undefined;
  // One stop for a whole stack or for whatever part of it started before a step failed.
  let gatewayUrl: string | undefined;
  const stop = closeOnTeardown(async () => {
    if (gatewayUrl) forgetGateway(gatewayUrl);
    for (const listening of [server, metricsServer]) {
      if (!listening?.listening) continue;
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      });
    }
    await Promise.allSettled(
      Object.entries(replicas).flatMap(([name, running]) => running.map((s) => namedWhenSlow(`stopping ${name}`, s.stop()))),
    );
    await namedWhenSlow('deleting the vhost and its users', broker.close());
    await namedWhenSlow('dropping the schemas', dropSchemas(String(env.DATABASE_URL), schemas));
    await gatewayRedis?.quit();
    await redis?.quit();
    await redisUsers.close();
  });
  try {
    // allSettled, not all: a stop must not run while a sibling is still starting (it would leak).
    const started = await Promise.allSettled(
      opts.services.map(async (name) => {
        const schema = uniqueName(`t_${name}`);
        schemas.push(schema);
        replicas[name] = [];
        const startedReplicas = await Promise.allSettled(
          ports[name]!.map(async (port) => {
            const running = await startService(DEFINITIONS[name], {
              ...serviceEnv(env, name),
              DB_SCHEMA: schema,
              PORT: String(port),
              ...opts.serviceEnv?.[name],
            });
            replicas[name]!.push(running);
          }),
        );
        const failedReplica = startedReplicas.find((result) => result.status === 'rejected');
        if (failedReplica) throw failedReplica.reason;
        services[name] = replicas[name][0];
      }),
    );
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const log = createLogger('gateway', String(env.LOG_LEVEL), env.LOG_FILE);
    const gatewayConfig = loadGatewayConfig({ ...env, ...internalKeysFor('gateway'), REDIS_URL: processRedisUrl(env, 'gateway'), PORT: '0' });
    redis = await connectRedis(String(env.REDIS_URL), log, { commandTimeoutMs: gatewayConfig.REDIS_COMMAND_TIMEOUT_MS });
    gatewayRedis = await connectRedis(gatewayConfig.REDIS_URL, log, { commandTimeoutMs: gatewayConfig.REDIS_COMMAND_TIMEOUT_MS });
    const gatewayMetrics = createGatewayMetrics();
    const gateway = createServer(createGateway(gatewayConfig, gatewayRedis, log, gatewayMetrics));
    // As the gateway's main.ts: the server outlives the client's idle keep-alive sockets, so a test
    // that pauses (an outage it stages) never reuses a socket the server is closing that instant.
    gateway.keepAliveTimeout = 65_000;
    server = gateway;
    // Port 0: the kernel picks a free port as it binds, so there is no window for another socket.
    await new Promise<void>((resolve, reject) => {
      gateway.once('error', reject);
      gateway.listen(0, '127.0.0.1', () => {
        gateway.off('error', reject);
        resolve();
      });
    });
    const metrics = gatewayMetrics.server();
    metricsServer = metrics;
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
  } catch (err) {
    await stop();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = (gatewayUrl = `http://127.0.0.1:${port}`);
  registerGateway(url);
  return {
    url,
    gatewayMetricsUrl: `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`,
    env,
    services,
    replicas,
    redis: redis!,
    broker,
    stop,
  };
}

/** Calls the stack's `/internal` routes as `caller` would: each route answers only the callers its contract names. */
export function internalClientAs(stack: Stack, caller: ServiceName): InternalClient {
  return new InternalClient(serviceUrls(stack.env as Parameters<typeof serviceUrls>[0]), (target) =>
    assertionFor({ kind: 'service', sub: caller, ip: null }, { service: target.audience, method: target.method, path: target.path }),
  );
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A small JSON client for tests: `api(stack.url).post('/api/...', body, token)`. Every answer of a
 * stack's gateway, `raw` ones included, is held against the OpenAPI document it serves
 * (`checkedFetch`): a schema break or an undocumented status throws.
 */
export function api(baseUrl: string) {
  async function call<T>(method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const response = await checkedFetch(baseUrl + path, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await readBody(response)) as T };
  }
  return {
    get: <T = any>(path: string, token?: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, token, headers),
    post: <T = any>(path: string, body?: unknown, token?: string, headers?: Record<string, string>) => call<T>('POST', path, body ?? {}, token, headers),
    put: <T = any>(path: string, body: unknown, token?: string, headers?: Record<string, string>) => call<T>('PUT', path, body, token, headers),
    delete: <T = any>(path: string, token?: string, headers?: Record<string, string>) => call<T>('DELETE', path, undefined, token, headers),
    raw: (method: string, path: string, init: RequestInit = {}) => checkedFetch(baseUrl + path, { ...init, method }),
  };
}

/**
 * A token as identity or admin would issue it, signed with the development secret the test stack
 * uses: for tests that need a caller without going through the login flow.
 */
export function mintToken(realm: Realm, sub: string = uuidv7(), sid: string = uuidv7(), ttlSeconds = 600): string {
  const secret = tokenSecretShape[realm === 'user' ? 'USER_TOKEN_SECRET' : 'ADMIN_TOKEN_SECRET'].parse(undefined);
  return signAccessToken(realm, sub, sid, secret, ttlSeconds).token;
}

/** A caller as the gateway sees one after login, minted without going through identity or admin. */
export interface Caller {
  id: string;
  sid: string;
  token: string;
}

export function mintCaller(realm: Realm): Caller {
  const id = uuidv7();
  const sid = uuidv7();
  return { id, sid, token: mintToken(realm, id, sid) };
}

export const newUser = (): Caller => mintCaller('user');

/**
 * A real back-office admin holding `roles`, signed in: its row and session are written in the
 * stack's admin service schema through that service's own persistence, and the gateway's copy of
 * the session and roles through the service's revocation store, as a login does. It has no usable
 * password; tests of the login itself go through `/api/admin/auth/login`. The stack must run admin.
 */
export async function newAdmin(stack: Stack, roles: AdminRole[] = ['super_admin']): Promise<Caller & { username: string }> {
  const admin = stack.services.admin;
  if (!admin) throw new Error('newAdmin needs the admin service in the stack: startStack({ services: [..., "admin"] })');
  const id = uuidv7();
  const sid = uuidv7();
  const username = `t_${id.slice(-12)}`;
  const passwordHash = 'no password: made by the testkit';
  await insertAdmin(admin.ctx.db, { id, username, nickname: username, passwordHash, roles });
  await insertAdminSession(admin.ctx.db, { id: sid, adminId: id, ip: null, verifiedHash: passwordHash });
  const ttlSeconds = 600;
  await admin.ctx.revocations.setAdminRoles(id, roles);
  await admin.ctx.revocations.openAdminSession(id, sid, ttlSeconds);
  return { id, sid, username, token: mintToken('admin', id, sid, ttlSeconds) };
}

/**
 * The back office's notifications (`ops.alert`) about one subject, as `admin` reads them at
 * `GET /api/admin/notifications` (the stack needs notify and admin), once `count` have arrived.
 */
export async function backOfficeAlerts(stack: Stack, admin: { token: string }, subjectId: string, count = 1): Promise<Array<Record<string, any>>> {
  const client = api(stack.url);
  return eventually(
    async () => {
      const res = await client.get('/api/admin/notifications?limit=100', admin.token);
      if (res.status !== 200) throw new Error(`GET /api/admin/notifications answered ${res.status}: ${JSON.stringify(res.body)}`);
      return (res.body.items as Array<Record<string, any>>).filter((n) => n.biz_id === subjectId);
    },
    (found) => found.length >= count,
    15_000,
  );
}

/** The envelopes of `type` a service of the stack wrote to its outbox, oldest first. */
export async function outboxEvents(stack: Stack, service: ServiceName, type: EventType): Promise<Array<DomainEvent<any>>> {
  const rows: Array<{ payload: DomainEvent<any> }> = await stack.services[service]!.ctx.db.query(
    `SELECT payload FROM outbox WHERE type = $1 ORDER BY seq`,
    [type],
  );
  return rows.map((row) => row.payload);
}

/**
 * Publishes an event as its producing service would, with its broker user onto its exchange; `id`
 * replays an envelope already sent (a redelivery).
 */
export function publishEvent<T extends EventType>(stack: Stack, type: T, data: EventData<T>, id?: string): Promise<DomainEvent<T>> {
  return publishOnExchange(stack.env, type, data, id);
}
export * from './simulators/aliyun-sms';
export * from './simulators/aliyun-id-verify';
export * from './simulators/tencent-cloud';
export * from './simulators/alipay';
export * from './simulators/wechatpay';
export * from './processes';
