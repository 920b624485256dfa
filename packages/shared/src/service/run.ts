import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { DataSource, EntitySchema, MixedList } from 'typeorm';
import { z } from 'zod';
import { createAssertionSigner, createAssertionVerifier } from '../auth/assertion';
import { internalKeysOf } from '../auth/internal-keys';
import { Revocations } from '../auth/revocation';
import { baseEnvShape, inDevelopment, loadConfig, serviceUrls, serviceUrlShape } from '../config/env';
import { type EventType, type ServiceName, DEFAULT_PORTS, eventConsumers } from '@market/contracts';
import { createDataSource, DB_TIMEOUT_DEFAULTS, initializeDataSource } from '../db/data-source';
import type { Db } from '../db/sql';
import { Bus } from '../events/bus';
import { BrokerUsers } from '../events/broker-users';
import { CommittedEvents, type CommittedEventListener } from '../events/committed-events';
import type { Metrics } from '../metrics/registry';
import { instrumentHandlers, serviceMetrics } from './service-metrics';
import type { EventHandlers } from '../events/event-handlers';
import { handlesMoneyEvents, InboxConsumer, undeclaredHandlers } from '../events/inbox';
import { hasWaitingEventsTable } from '../events/waiting-events';
import { EventWriter, isRelayBookkeeping, OutboxRelay } from '../events/outbox';
import { InternalClient } from '../http/internal-client';
import type { InternalBinding } from '../http/internal-routes';
import { IdempotencyStore } from '../http/idempotency';
import { declaresIdempotency, type RouteBinding } from '../http/routes';
import { createServiceApp } from '../http/service-app';
import { checkWithin, withinOrNull } from '../http/readiness';
import type { ErrorStatuses } from '../http/error-statuses';
import { drainServer } from '../http/drain-server';
import { flushTraces } from '../tracing';
import { createLogger, type Logger } from '../logging/logger';
import { connectRedis, type RedisClient } from '../redis';
import { periodicJob, type Job } from './periodic-job';

const serviceEnvShape = {
  ...baseEnvShape,
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HOST: z.string().default('127.0.0.1'),
  DB_SCHEMA: z.string().optional(),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(DB_TIMEOUT_DEFAULTS.connectTimeoutMs),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(DB_TIMEOUT_DEFAULTS.statementTimeoutMs),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(DB_TIMEOUT_DEFAULTS.idleInTransactionTimeoutMs),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000),
  INBOX_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(6),
  INBOX_RETRY_BASE_MS: z.coerce.number().int().min(10).default(500),
  INBOX_RETRY_MAX_MS: z.coerce.number().int().min(10).default(60_000),
  INBOX_PREFETCH: z.coerce.number().int().min(1).default(4),
  /** the most deliveries one transaction handles in a service whose events go in batches (`batchEvents`), and its prefetch */
  INBOX_BATCH_MAX: z.coerce.number().int().min(1).max(500).default(32),
  INBOX_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(25),
  /** at a stop, how long idle keep-alive connections may stay open to take a last request (answered with Connection: close) */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(2000),
  ...serviceUrlShape,
};

/**
 * Each event in flight holds a pooled connection for its transaction: as many in flight as the pool
 * holds would leave requests none (issue 19), so the prefetch stays below the pool size.
 */
const consumerLeavesConnections = (config: { INBOX_PREFETCH: number; DB_POOL_SIZE: number }) => config.INBOX_PREFETCH < config.DB_POOL_SIZE;

/** How long a readiness check may take: below the Kubernetes probe's 3 s and the gateway's 1 s per replica. */
const READINESS_CHECK_MS = 500;

type ServiceEnv<S extends z.ZodRawShape> = z.infer<z.ZodObject<typeof serviceEnvShape>> & z.infer<z.ZodObject<S>>;

export interface ServiceContext<S extends z.ZodRawShape = z.ZodRawShape> {
  name: ServiceName;
  schema: string;
  config: ServiceEnv<S>;
  log: Logger;
  /** the service's database; its TypeORM DataSource (pool, migrations, shutdown) stays in the kit */
  db: Db;
  /**
   * Calls `fn` after every transaction committed on this service's database (the inbox's included,
   * a change committed on its own by `events.commitAllWith` too, the outbox relay's marking of sent
   * events not), before the code that committed goes on.
   */
  afterEveryCommit: (fn: () => void) => void;
  redis: RedisClient;
  bus: Bus;
  events: EventWriter;
  /** `name` under this deployment's Redis key prefix */
  redisKey: (name: string) => string;
  revocations: Revocations;
  /** calls other services' `/internal/*` contracts, signed as this service */
  internal: InternalClient;
  /** the service's metrics at `/metrics`; a service adds its business figures here */
  metrics: Metrics;
  /** runs `listener` for each event of `type` this service writes, once its transaction has committed */
  onCommittedEvent: <T extends EventType>(type: T, listener: CommittedEventListener<T>) => void;
}

export interface ServiceParts {
  routes: RouteBinding[];
  internal?: InternalBinding[];
  handlers?: EventHandlers;
  /**
   * The handlers write nothing but in their transaction (the audit log, notifications): several
   * deliveries share one transaction, up to `INBOX_BATCH_MAX`, one transaction at a time (ADR 0068),
   * a delivery waiting up to `INBOX_BATCH_WAIT_MS` for others to join it (ADR 0085).
   */
  batchEvents?: boolean;
  jobs?: Job[];
  /**
   * Ends what would keep the HTTP server from closing (open streams); runs when the service
   * stops, before the server waits for its connections.
   */
  beforeStop?: () => Promise<void> | void;
  /**
   * the service's own conditions of serving: one false takes the replica out of rotation (`/readyz`
   * 503); a check that cannot be answered within 500 ms is reported as `own: false`, not a reason (ADR 0070)
   */
  readiness?: () => Promise<Record<string, boolean>>;
}

export interface ServiceDefinition<S extends z.ZodRawShape> {
  name: ServiceName;
  env: S;
  entities: MixedList<Function | string | EntitySchema>;
  /** the migrations, or a function of the configuration for migrations that need it (a keyring to seal existing values) */
  migrations: MixedList<Function | string> | ((config: ServiceEnv<S>) => MixedList<Function | string>);
  build: (ctx: ServiceContext<S>) => ServiceParts | Promise<ServiceParts>;
  /** the HTTP edge's table from the service's domain error codes to statuses (`http/error-statuses.ts`, ADR 0041) */
  errorStatuses?: ErrorStatuses;
}

export function defineService<S extends z.ZodRawShape>(def: ServiceDefinition<S>) {
  return def;
}

/** Queries and transactions of `dataSource` and nothing else of it, so services cannot reach past the kit's `Db`. */
function dbOf(dataSource: DataSource): Db {
  return {
    query: (sql, parameters) => dataSource.query(sql, parameters),
    transaction: (work) => dataSource.transaction(work),
  };
}

export interface RunningService<S extends z.ZodRawShape = z.ZodRawShape> {
  ctx: ServiceContext<S>;
  relay: OutboxRelay;
  consumer: InboxConsumer;
  server: Server;
  url: string;
  stop(): Promise<void>;
}

/** Starts one service: config, database and migrations, bus, outbox relay, inbox consumer, HTTP. */
export async function startService<S extends z.ZodRawShape>(
  def: ServiceDefinition<S>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningService<S>> {
  const config = loadConfig({ ...serviceEnvShape, ...def.env }, env) as unknown as ServiceEnv<S>;
  const keys = internalKeysOf(def.name, config);
  if (!consumerLeavesConnections(config)) {
    throw new Error(`INBOX_PREFETCH (${config.INBOX_PREFETCH}) must be below DB_POOL_SIZE (${config.DB_POOL_SIZE}), or events in flight take every connection`);
  }
  const log = createLogger(def.name, config.LOG_LEVEL, config.LOG_FILE);
  const schema = config.DB_SCHEMA ?? def.name;
  const dataSource = createDataSource({
    url: config.DATABASE_URL,
    schema,
    entities: def.entities,
    migrations: typeof def.migrations === 'function' ? def.migrations(config) : def.migrations,
    poolSize: config.DB_POOL_SIZE,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    onConnectionError: (err) => log.warn({ err: { message: err.message } }, 'database connection lost; the pool replaces it'),
  });
  // Everything started is closed again in reverse order, by stop() or at once when a later step of
  // the start throws: a half-started service must not keep its process (or a test runner) alive.
  const closers: Array<() => unknown> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) {
      await Promise.resolve()
        .then(close)
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'a step of stopping failed'));
    }
  };
  try {
    closers.push(() => dataSource.isInitialized && dataSource.destroy());
    await initializeDataSource(dataSource, schema);
    const redis = await connectRedis(config.REDIS_URL, log, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
    closers.push(() => redis.quit());
    const bus = await Bus.connect(config.AMQP_URL, config.EVENTS_EXCHANGE, log, { name: `${def.name}:${schema}:${process.pid}`, service: def.name });
    closers.push(() => bus.close());
    const committed = new CommittedEvents(dataSource);
    const afterCommit: Array<() => void> = [];
    const tellCommitted = () => {
      for (const fn of afterCommit) fn();
    };
    // a TypeORM transaction's commit, and (through the event writer) a statement committed on its own
    dataSource.subscribers.push({
      afterTransactionCommit: ({ queryRunner }) => {
        if (!isRelayBookkeeping(queryRunner)) tellCommitted();
      },
    });
    const observed = serviceMetrics(def.name, dataSource, bus, eventConsumers[def.name].length > 0);
    closers.push(() => observed.close());
    const sign = createAssertionSigner(keys.signing);
    const serviceIdentity = { kind: 'service', sub: def.name, ip: null } as const;
    const ctx: ServiceContext<S> = {
      name: def.name,
      schema,
      config,
      log,
      db: dbOf(dataSource),
      afterEveryCommit: (fn) => {
        afterCommit.push(fn);
      },
      redis,
      bus,
      events: new EventWriter(def.name, schema, (tx, event) => committed.written(tx, event), tellCommitted),
      redisKey: (name) => `${config.REDIS_KEY_PREFIX}${name}`,
      revocations: new Revocations(redis, config.REDIS_KEY_PREFIX),
      internal: new InternalClient(serviceUrls(config), (target) => sign(serviceIdentity, target)),
      metrics: observed.metrics,
      onCommittedEvent: (type, listener) => committed.on(type, listener),
    };
    const parts = await def.build(ctx);
    let beforeStopped: Promise<void> | undefined;
    const beforeStop = () => (beforeStopped ??= Promise.resolve(parts.beforeStop?.()));
    closers.push(beforeStop);
    const undeclared = undeclaredHandlers(def.name, parts.handlers ?? {});
    if (undeclared.length > 0) {
      throw new Error(`${def.name} handles ${undeclared.join(', ')} without declaring it in eventConsumers (contracts/events.ts)`);
    }
    if (handlesMoneyEvents(parts.handlers ?? {}) && !(await hasWaitingEventsTable(ctx.db))) {
      throw new Error(`${def.name} handles money events but lacks the waiting_events migration (CreateWaitingEvents1765100000000)`);
    }
    const idempotency = new IdempotencyStore(dataSource);
    const jobs: Job[] = [...(parts.jobs ?? [])];
    if (parts.routes.some((r) => declaresIdempotency(r.contract))) {
      if (!(await idempotency.isInstalled())) {
        throw new Error(`${def.name} has routes taking Idempotency-Key but lacks the idempotencyMigrations`);
      }
      jobs.push(periodicJob('purge expired idempotency keys', 10 * 60_000, () => idempotency.purgeExpired(), log));
    }

    // Before anything is published or consumed: one broker user shared by every service is development's convenience: in production the broker
    // must tell services apart, or any of them could pass for another (ADR 0054).
    if (!inDevelopment(config) && new BrokerUsers(bus.user, def.name).shared) {
      throw new Error(`${def.name} must connect to the broker as its own user (market_${def.name}), not ${bus.user} (ADR 0054)`);
    }
    const relay = new OutboxRelay({
      dataSource,
      schema,
      bus,
      log,
      pollIntervalMs: config.OUTBOX_POLL_MS,
    });
    closers.push(() => relay.stop());
    await relay.start();
    const consumer = new InboxConsumer({
      service: def.name,
      dataSource,
      bus,
      log,
      handlers: instrumentHandlers(observed.metrics, parts.handlers ?? {}),
      events: ctx.events,
      maxAttempts: config.INBOX_MAX_ATTEMPTS,
      baseDelayMs: config.INBOX_RETRY_BASE_MS,
      maxDelayMs: config.INBOX_RETRY_MAX_MS,
      prefetch: config.INBOX_PREFETCH,
      batchSize: parts.batchEvents ? config.INBOX_BATCH_MAX : 1,
      batchWaitMs: config.INBOX_BATCH_WAIT_MS,
    });
    closers.push(() => consumer.stop());
    await consumer.start();
    for (const job of jobs) {
      closers.push(() => job.stop());
      await job.start();
    }

    let stopping: Promise<void> | null = null;
    const app = createServiceApp({
      log,
      verifyAssertion: createAssertionVerifier(def.name, keys.publicKeys),
      routes: parts.routes,
      internal: parts.internal,
      validateResponses: inDevelopment(config),
      idempotency,
      errorStatuses: def.errorStatuses,
      metrics: observed.metrics,
      // What takes this replica out of rotation is what it cannot serve while another replica could
      // (ADR 0070): it is stopping, or one of its own conditions fails. The database, broker and Redis
      // are every replica's alike: while one is away the routes that need it answer 503 and the others
      // keep working (the outbox holds events, ADR 0012), so they are reported, never a reason to go.
      readiness: async () => {
        const [database, own] = await Promise.all([
          checkWithin(READINESS_CHECK_MS, () => dataSource.query('SELECT 1').then(() => true)),
          parts.readiness && withinOrNull(READINESS_CHECK_MS, parts.readiness),
        ]);
        return {
          // a stopping replica tells load balancers to send no more while it drains
          own: { accepting: stopping === null, ...own },
          // A service's own conditions read its backing services (admin's its database): one that
          // cannot be answered is reported beside them, not taken as the condition being false.
          backing: { database, broker: bus.isConnected, redis: redis.isReady, ...(own === null ? { own: false } : {}) },
        };
      },
    });
    const port = config.PORT ?? DEFAULT_PORTS[def.name];
    const server = await new Promise<Server>((resolve, reject) => {
      // Express 5 hands a listen error (EADDRINUSE) to this callback rather than throwing it.
      const s = app.listen(port, config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
    });
    server.keepAliveTimeout = 65_000;
    // The server closes first on stop (after beforeStop has ended what would hold it open).
    closers.push(() => drainServer(server, config.SHUTDOWN_GRACE_MS));
    const address = server.address() as AddressInfo;
    log.info({ port: address.port, schema }, `${def.name} listening`);

    const stop = () => {
      stopping ??= (async () => {
        await beforeStop();
        await closeAll();
      })();
      return stopping;
    };
    return { ctx, relay, consumer, server, url: `http://127.0.0.1:${address.port}`, stop };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The body of every service's `main.ts`: start, and stop cleanly on SIGINT/SIGTERM. */
export function runServiceMain<S extends z.ZodRawShape>(def: ServiceDefinition<S>) {
  startService(def).then(
    (running) => {
      const shutdown = (signal: string) => {
        running.ctx.log.info({ signal }, 'shutting down');
        running.stop().then(
          () => flushTraces().finally(() => process.exit(0)),
          () => flushTraces().finally(() => process.exit(1)),
        );
      };
      process.once('SIGINT', () => shutdown('SIGINT'));
      process.once('SIGTERM', () => shutdown('SIGTERM'));
    },
    (err) => {
      // Config errors carry their own readable message; anything else is logged whole.
      process.stderr.write(`${def.name} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
