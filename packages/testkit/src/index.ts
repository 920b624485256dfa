import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_PORTS, eventProducers, type EventData, type EventType, type ServiceName } from '@market/contracts';
import { signAccessToken, type Realm } from '@market/shared/auth';
import { tokenSecretShape, serviceUrls } from '@market/shared/config';
import { buildEvent, type DomainEvent } from '@market/shared/events';
import { InternalClient } from '@market/shared/http';
import { createLogger } from '@market/shared/logging';
import { connectRedis, type RedisClient } from '@market/shared/redis';
import { startService, type RunningService, type ServiceDefinition } from '@market/shared/service';
import { assertionFor, dropBusObjects, dropSchemas, testEnv, uniqueName } from '@market/shared/testing';
import { createGateway } from '../../../services/gateway/src/app';
import { loadGatewayConfig } from '../../../services/gateway/src/config';
import { createGatewayMetrics } from '../../../services/gateway/src/metrics';
import { createMetricsServer } from '@market/shared/metrics';
import { adminService } from '../../../services/admin/src/service';
import { catalogService } from '../../../services/catalog/src/service';
import { filesService } from '../../../services/files/src/service';
import { identityService } from '../../../services/identity/src/service';
import { notifyService } from '../../../services/notify/src/service';
import { ordersService } from '../../../services/orders/src/service';
import { walletService } from '../../../services/wallet/src/service';

const DEFINITIONS: Record<ServiceName, ServiceDefinition<any>> = {
  identity: identityService,
  catalog: catalogService,
  orders: ordersService,
  wallet: walletService,
  files: filesService,
  notify: notifyService,
  admin: adminService,
};

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
  redis: RedisClient;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface StackOptions {
  services: ServiceName[];
  /** environment for every service and the gateway */
  env?: Record<string, string>;
  /** extra environment for one service */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * processes of a service (default 1), started together on one schema, each with its own port,
   * relay, consumer and jobs; the gateway and the other services take them in turn
   */
  replicas?: Partial<Record<ServiceName, number>>;
}

/**
 * Starts the named services in-process, each in its own fresh schema, all on one fresh exchange
 * and Redis key prefix, behind a real gateway: tests talk HTTP to `stack.url` as a client would.
 * Services not started answer as down (the gateway returns 503).
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
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
  const ports: Partial<Record<ServiceName, number[]>> = {};
  for (const name of opts.services) {
    ports[name] = [];
    for (let i = 0; i < (opts.replicas?.[name] ?? 1); i++) ports[name].push(await freePort());
  }
  const urls = Object.fromEntries(
    (Object.keys(DEFINITIONS) as ServiceName[]).map((name) => [
      `${name.toUpperCase()}_URL`,
      ports[name] ? ports[name].map((port) => `http://127.0.0.1:${port}`).join(',') : `http://127.0.0.1:${DEFAULT_PORTS[name] + 10_000}`,
    ]),
  );
  const env = { ...base, ...urls };
  const schemas: string[] = [];
  const services: Stack['services'] = {};
  const replicas: Stack['replicas'] = {};
  const all = () => Object.values(replicas).flat();
  try {
    await Promise.all(
      opts.services.map(async (name) => {
        const schema = uniqueName(`t_${name}`);
        schemas.push(schema);
        replicas[name] = [];
        await Promise.all(
          ports[name]!.map(async (port) => {
            const running = await startService(DEFINITIONS[name], { ...env, DB_SCHEMA: schema, PORT: String(port), ...opts.serviceEnv?.[name] });
            replicas[name]!.push(running);
          }),
        );
        services[name] = replicas[name][0];
      }),
    );
  } catch (err) {
    await Promise.allSettled(all().map((s) => s!.stop()));
    throw err;
  }
  const log = createLogger('gateway', String(env.LOG_LEVEL), env.LOG_FILE);
  const gatewayConfig = loadGatewayConfig({ ...env, PORT: '0' });
  const redis = await connectRedis(gatewayConfig.REDIS_URL, log, { commandTimeoutMs: gatewayConfig.REDIS_COMMAND_TIMEOUT_MS });
  const gatewayMetrics = createGatewayMetrics();
  const server = createServer(createGateway(gatewayConfig, redis, log, gatewayMetrics));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const metricsServer = createMetricsServer(gatewayMetrics.metrics);
  await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${port}`,
    gatewayMetricsUrl: `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`,
    env,
    services,
    replicas,
    redis,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await new Promise((resolve) => metricsServer.close(resolve));
      await Promise.allSettled(all().map((s) => s!.stop()));
      const queues = Object.values(services).flatMap((s) => Object.values(s!.consumer.queues));
      await dropBusObjects(String(env.AMQP_URL), String(env.EVENTS_EXCHANGE), queues);
      await dropSchemas(String(env.DATABASE_URL), schemas);
      await redis.quit();
    },
  };
}

/** Calls the stack's `/internal` routes as `caller` would: each route answers only the callers its contract names. */
export function internalClientAs(stack: Stack, caller: ServiceName): InternalClient {
  return new InternalClient(serviceUrls(stack.env as Parameters<typeof serviceUrls>[0]), () =>
    assertionFor({ kind: 'service', sub: caller, ip: null }),
  );
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small JSON client for tests: `api(stack.url).post('/api/...', body, token)`. */
export function api(baseUrl: string) {
  async function call<T>(method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
  return {
    get: <T = any>(path: string, token?: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, token, headers),
    post: <T = any>(path: string, body?: unknown, token?: string, headers?: Record<string, string>) => call<T>('POST', path, body ?? {}, token, headers),
    put: <T = any>(path: string, body: unknown, token?: string, headers?: Record<string, string>) => call<T>('PUT', path, body, token, headers),
    delete: <T = any>(path: string, token?: string, headers?: Record<string, string>) => call<T>('DELETE', path, undefined, token, headers),
    raw: (method: string, path: string, init: RequestInit = {}) => fetch(baseUrl + path, { ...init, method }),
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
export const newAdmin = (): Caller => mintCaller('admin');

/**
 * Polls `probe` until `accept` holds (events travel through the broker, so their effects arrive a
 * moment later); fails with the last value seen when time runs out.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean = (value) => value !== undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last value: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
 * Publishes an event as its producing service would, onto the stack's exchange; `id` replays an
 * envelope already sent (a redelivery).
 */
export async function publishEvent<T extends EventType>(stack: Stack, type: T, data: EventData<T>, id?: string): Promise<DomainEvent<T>> {
  const connection = await connect(String(stack.env.AMQP_URL));
  try {
    const channel = await connection.createConfirmChannel();
    const event = { ...buildEvent(type, data, eventProducers[type][0]!, null), ...(id ? { id } : {}) };
    channel.publish(String(stack.env.EVENTS_EXCHANGE), type, Buffer.from(JSON.stringify(event)), {
      persistent: true,
      messageId: event.id,
      type,
      contentType: 'application/json',
    });
    await channel.waitForConfirms();
    await channel.close();
    return event;
  } finally {
    await connection.close();
  }
}
