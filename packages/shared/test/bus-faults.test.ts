import { execFileSync } from 'node:child_process';
import { createServer, connect as tcpConnect, type Server, type Socket, type AddressInfo } from 'node:net';
import { connect, type ChannelModel } from 'amqplib';
import type { DataSource } from 'typeorm';
import { eventConsumers } from '@market/contracts';
import { Bus } from '../src/events/bus';
import { buildEvent } from '../src/events/envelope';
import { InboxConsumer, undeclaredHandlers } from '../src/events/inbox';
import { EventWriter, OutboxRelay, UnroutableEvents } from '../src/events/outbox';
import { declareTopology, producerExchange, queueNames, unroutedNames } from '../src/events/topology';
import { brokerUserOf } from '../src/events/broker-users';
import { createLogger } from '../src/logging/logger';
import { dropBusObjects, dropSchemas, resolveInfra, uniqueName, type Infra } from '../src/testing';
import { parkedAs, producerAndConsumerDbs, until, type ParkedMessage } from './bus-support';

const log = createLogger('bus-faults-test', 'silent');


const registered = (userId: string) =>
  ({ user_id: userId, phone_masked: '138****8000', nickname: 'n', registered_at: new Date().toISOString() }) as const;

/**
 * A TCP hop between a bus and the broker that the test can cut and restore (a broker outage for
 * this bus alone) or freeze (the connection stays up and nothing answers, as from a stalled broker).
 */
async function brokerProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  let frozen = false;
  const open = async () => {
    frozen = false;
    server = createServer((client) => {
      const upstream = tcpConnect(Number(target.port || 5672), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('data', (chunk) => frozen || upstream.write(chunk));
      upstream.on('data', (chunk) => frozen || client.write(chunk));
      client.on('end', () => upstream.end());
      upstream.on('end', () => client.end());
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as AddressInfo).port;
  };
  await open();
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    async cut() {
      await new Promise((resolve) => {
        server!.close(resolve);
        for (const s of sockets) s.destroy();
      });
    },
    restore: open,
    freeze() {
      frozen = true;
    },
  };
}

describe('event bus under broker faults and hostile producers', () => {
  let infra: Infra;
  let exchange: string;
  let producerSchema: string;
  let consumerSchema: string;
  let producerDb: DataSource;
  let consumerDb: DataSource;
  let bus: Bus;
  let raw: ChannelModel;
  const consumers: InboxConsumer[] = [];
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  async function effectCount(userId: string): Promise<number> {
    const [{ n }] = await consumerDb.query(`SELECT count(*)::int AS n FROM effects WHERE user_id = $1`, [userId]);
    return n;
  }

  async function pendingOutbox(): Promise<number> {
    const [{ n }] = await producerDb.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`);
    return n;
  }

  async function writeEvent(type: 'user.registered' | 'audit.recorded', userId: string) {
    const writer = new EventWriter('identity', producerSchema);
    await producerDb.transaction(async (m) => {
      if (type === 'user.registered') await writer.publish(m, 'user.registered', registered(userId));
      else
        await writer.publish(m, 'audit.recorded', {
            actor_type: 'system',
            actor_id: userId,
            action: 'test.audit',
            biz_type: 'test',
            biz_id: null,
            detail: {},
            ip: null,
            result: 'success',
            request_id: null,
            occurred_at: new Date().toISOString(),
          });
    });
  }

  function relay(overrides: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) {
    return new OutboxRelay({ dataSource: producerDb, schema: producerSchema, bus, log, ...overrides });
  }

  function consumer(service: string, handlers: ConstructorParameters<typeof InboxConsumer>[0]['handlers'], onBus = bus) {
    const c = new InboxConsumer({ service, dataSource: consumerDb, bus: onBus, log, handlers, maxAttempts: 3, baseDelayMs: 20, resubscribeDelayMs: 100 });
    consumers.push(c);
    return c;
  }

  const recordEffect = async (event: { id: string; data: { user_id: string } }, manager: { query: (q: string, p: unknown[]) => Promise<unknown> }) => {
    await manager.query(`INSERT INTO effects (event_id, user_id) VALUES ($1, $2)`, [event.id, event.data.user_id]);
  };

  /** A `user.registered` handler that records the effect, its first run held until `release()`. */
  function firstRunHeld() {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = {
      entered: 0,
      release: () => release(),
      handler: async (event: Parameters<typeof recordEffect>[0], manager: Parameters<typeof recordEffect>[1]) => {
        held.entered += 1;
        if (held.entered === 1) await gate;
        await recordEffect(event, manager);
      },
    };
    return held;
  }

  /** Publishes as development's shared broker user would, on `from`'s exchange; `userId: null` sends none. */
  async function publishRaw(event: object, routingKey: string, from = 'identity', userId: string | null = brokerUserOf(infra.AMQP_URL)) {
    const channel = await raw.createConfirmChannel();
    channel.publish(producerExchange(exchange, from), routingKey, Buffer.from(JSON.stringify(event)), { persistent: true, ...(userId ? { userId } : {}) });
    await channel.waitForConfirms();
    await channel.close();
  }

  async function takeOne(queue: string) {
    const channel = await raw.createChannel();
    try {
      let message: Awaited<ReturnType<typeof channel.get>> = false;
      await until(async () => {
        message = await channel.get(queue, { noAck: true });
        return message !== false;
      });
      return message as unknown as ParkedMessage;
    } finally {
      await channel.close();
    }
  }

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    infra = await resolveInfra();
    exchange = uniqueName('test.faults');
    producerSchema = uniqueName('t_fproducer');
    consumerSchema = uniqueName('t_fconsumer');
    ({ producerDb, consumerDb } = await producerAndConsumerDbs(infra.DATABASE_URL, producerSchema, consumerSchema));
    raw = await connect(infra.AMQP_URL);
    // A fresh install: nothing of this exchange's topology exists before the producer's bus connects.
    bus = await Bus.connect(infra.AMQP_URL, exchange, log, { channelTimeoutMs: 1000 });
  });

  afterEach(async () => {
    // Stopped consumers keep their queues; a running one would compete with the next test's.
    await Promise.allSettled(consumers.map((c) => c.stop()));
    expect(rejections).toEqual([]);
  });

  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await Promise.allSettled(consumers.map((c) => c.stop()));
    await bus.close();
    await raw.close();
    await producerDb.destroy();
    await consumerDb.destroy();
    await dropSchemas(infra.DATABASE_URL, [producerSchema, consumerSchema]);
    await dropBusObjects(infra.AMQP_URL, exchange, consumers.flatMap((c) => Object.values(c.queues)));
  });

  it('every consumer a service declares has its queue before any relay publishes: the first event of a fresh install reaches a consumer started later', async () => {
    const actor = uniqueName('first-admin');
    await writeEvent('audit.recorded', actor);
    expect(await relay().drain()).toBe(1);
    expect(eventConsumers.admin).toContain('audit.recorded');

    const admin = consumer('admin', { 'audit.recorded': async (event, manager) => recordEffect({ id: event.id, data: { user_id: event.data.actor_id! } }, manager) });
    await admin.start();
    await until(async () => (await effectCount(actor)) === 1);
  });

  it('an event no service consumes waits in the holding queue instead of vanishing', async () => {
    const userId = uniqueName('unconsumed');
    expect(eventConsumers.admin).not.toContain('user.registered');
    await writeEvent('user.registered', userId);
    expect(await relay().drain()).toBe(1);
    const held = await takeOne(unroutedNames(exchange).queue);
    expect(JSON.parse(held.content.toString()).data.user_id).toBe(userId);
  });

  it('an event the broker cannot route at all stays in the outbox and goes out once it can be routed', async () => {
    const userId = uniqueName('unroutable');
    const channel = await raw.createChannel();
    await channel.deleteQueue(unroutedNames(exchange).queue);
    await writeEvent('user.registered', userId);
    const r = relay();
    await expect(r.drain()).rejects.toBeInstanceOf(UnroutableEvents);
    expect(await pendingOutbox()).toBe(1);

    await declareTopology(channel, exchange);
    await channel.close();
    expect(await r.drain()).toBe(1);
    expect(await pendingOutbox()).toBe(0);
    const held = await takeOne(unroutedNames(exchange).queue);
    expect(JSON.parse(held.content.toString()).data.user_id).toBe(userId);
  });

  it('a channel closed while a handler runs leaves the message to redelivery; the event takes effect once and nothing rejects unhandled', async () => {
    const held = firstRunHeld();
    const c = consumer(uniqueName('closing'), { 'user.registered': held.handler });
    await c.start();
    const handled = jest.spyOn(c, 'handle');
    const userId = uniqueName('mid-handler');
    await publishRaw(buildEvent('user.registered', registered(userId), 'identity', null), 'user.registered');
    await until(() => held.entered === 1);

    await c['channel']!.close();
    held.release();
    // The first run committed but could not ack; the redelivery meets the inbox and changes nothing.
    await until(() => handled.mock.calls.length >= 2);
    await until(() => c.isConsuming);
    await new Promise((r) => setTimeout(r, 300));
    expect(await effectCount(userId)).toBe(1);

    const after = uniqueName('after-reopen');
    await publishRaw(buildEvent('user.registered', registered(after), 'identity', null), 'user.registered');
    await until(async () => (await effectCount(after)) === 1);
  });

  it('the broker dropping the connection while a handler runs neither kills the process nor loses the event', async () => {
    const name = uniqueName('dropped-consumer');
    const consumerBus = await Bus.connect(infra.AMQP_URL, exchange, log, { name });
    const held = firstRunHeld();
    const c = consumer(uniqueName('dropping'), { 'user.registered': held.handler }, consumerBus);
    try {
      await c.start();
      const handled = jest.spyOn(c, 'handle');
      const userId = uniqueName('connection-drop');
      await publishRaw(buildEvent('user.registered', registered(userId), 'identity', null), 'user.registered');
      await until(() => held.entered === 1);
      const connections = execFileSync('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '--quiet'], { encoding: 'utf8' });
      const pid = connections.split('\n').find((line) => line.includes(name))?.split('\t')[0];
      expect(pid).toBeDefined();
      execFileSync('rabbitmqctl', ['close_connection', pid!, 'test: broker dropped the connection']);
      await until(() => !consumerBus.isConnected);
      held.release();
      await until(async () => handled.mock.calls.length >= 2 && (await effectCount(userId)) === 1, 20_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(await effectCount(userId)).toBe(1);
    } finally {
      await c.stop();
      await consumerBus.close();
    }
  }, 30_000);

  it('while the broker is unreachable the relay holds no row lock or connection, refuses channels at once, stops within a bound, and delivers after it returns', async () => {
    const proxy = await brokerProxy(new URL(infra.AMQP_URL));
    const cutBus = await Bus.connect(proxy.url, exchange, log, { channelTimeoutMs: 1000 });
    const c = consumer(uniqueName('outage'), { 'user.registered': recordEffect });
    await c.start();
    const cutRelay = relay({ bus: cutBus, pollIntervalMs: 50 });
    await cutRelay.start();
    try {
      await proxy.cut();
      await until(() => !cutBus.isConnected);
      await expect(cutBus.confirmChannel()).rejects.toThrow('broker not connected');

      const userId = uniqueName('during-outage');
      await writeEvent('user.registered', userId);
      await new Promise((r) => setTimeout(r, 500));
      // Another relay replica could claim the row now: nobody holds its lock.
      const claimable = await producerDb.transaction((m) =>
        m.query(`SELECT id FROM outbox WHERE published_at IS NULL FOR UPDATE NOWAIT`),
      );
      expect(claimable).toHaveLength(1);
      // this relay's sessions only (named after their schema): other suites' relays share the database
      const [{ n }] = await producerDb.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1 AND state = 'idle in transaction' AND query ILIKE '%FROM outbox%'`,
        [producerSchema],
      );
      expect(n).toBe(0);

      const stoppedIn = Date.now();
      await cutRelay.stop();
      expect(Date.now() - stoppedIn).toBeLessThan(3000);

      await proxy.restore();
      await until(() => cutBus.isConnected, 15_000);
      const resumed = relay({ bus: cutBus, pollIntervalMs: 50 });
      await resumed.start();
      try {
        await until(async () => (await effectCount(userId)) === 1, 15_000);
      } finally {
        await resumed.stop();
      }
    } finally {
      await cutRelay.stop();
      await cutBus.close();
      await proxy.cut();
    }
  }, 40_000);

  it('while the broker is unreachable each commit does not cut the backoff short: the relay retries on its own schedule', async () => {
    const proxy = await brokerProxy(new URL(infra.AMQP_URL));
    const cutBus = await Bus.connect(proxy.url, exchange, log, { channelTimeoutMs: 1000 });
    const cutRelay = relay({ bus: cutBus, pollIntervalMs: 50 });
    let attempts = 0;
    const confirmChannel = cutBus.confirmChannel.bind(cutBus);
    cutBus.confirmChannel = () => {
      attempts += 1;
      return confirmChannel();
    };
    await cutRelay.start();
    try {
      await proxy.cut();
      await until(() => !cutBus.isConnected);
      attempts = 0;
      // 30 commits over about 1.5 s, each with its NOTIFY: a relay woken by every one would try 30 times
      for (let i = 0; i < 30; i += 1) {
        await writeEvent('user.registered', uniqueName('outage-burst'));
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(attempts).toBeLessThanOrEqual(8);
    } finally {
      await cutRelay.stop();
      await cutBus.close();
      await proxy.cut();
      // the burst never reached a broker; later tests count what their own relay publishes
      await producerDb.query(`DELETE FROM outbox WHERE published_at IS NULL`);
    }
  }, 40_000);

  it('a broker that stops answering while connected costs the relay only its timeouts: confirms and channels give up, no lock stays held, stop() is bounded', async () => {
    const proxy = await brokerProxy(new URL(infra.AMQP_URL));
    const stalledBus = await Bus.connect(proxy.url, exchange, log, { channelTimeoutMs: 300 });
    const stalled = relay({ bus: stalledBus, pollIntervalMs: 50, confirmTimeoutMs: 300 });
    await stalled.start();
    try {
      proxy.freeze();
      const userId = uniqueName('stalled');
      await writeEvent('user.registered', userId);
      await new Promise((r) => setTimeout(r, 1500));
      expect(stalledBus.isConnected).toBe(true);
      await until(async () => {
        const rows = await producerDb.transaction((m) =>
          m.query(`SELECT id FROM outbox WHERE published_at IS NULL FOR UPDATE SKIP LOCKED`),
        );
        return rows.length === 1;
      });
      const stoppedIn = Date.now();
      await stalled.stop();
      expect(Date.now() - stoppedIn).toBeLessThan(3000);
      const closedIn = Date.now();
      await stalledBus.close();
      expect(Date.now() - closedIn).toBeLessThan(6000);
    } finally {
      await proxy.cut();
    }
    // What the stalled relay could not confirm goes out through a healthy one.
    expect(await relay().drain()).toBeGreaterThanOrEqual(1);
    expect(await pendingOutbox()).toBe(0);
  }, 30_000);

  it('an event whose envelope names a producer that does not own its type is parked in the DLQ at once and has no effect', async () => {
    const service = uniqueName('trusting');
    const c = consumer(service, { 'user.registered': recordEffect });
    await c.start();
    const userId = uniqueName('forged');
    await publishRaw(buildEvent('user.registered', registered(userId), 'catalog', null), 'user.registered');
    expect(parkedAs(await takeOne(queueNames(service, exchange).dead))).toEqual({
      userId,
      attempts: 1,
      lastError: 'producer catalog does not own user.registered',
    });
    expect(await effectCount(userId)).toBe(0);
  });

  it('an event without the broker-checked user_id is parked: nothing vouches for its sender', async () => {
    const service = uniqueName('unvouched');
    const c = consumer(service, { 'user.registered': recordEffect });
    await c.start();
    const userId = uniqueName('anonymous');
    await publishRaw(buildEvent('user.registered', registered(userId), 'identity', null), 'user.registered', 'identity', null);
    const parked = await takeOne(queueNames(service, exchange).dead);
    expect(parked.properties.headers['x-last-error']).toBe('no broker user_id on user.registered: the broker vouches for no sender');
    expect(await effectCount(userId)).toBe(0);
  });

  it('an event published under another type\'s routing key is parked, so topic permissions on routing keys cannot be bypassed', async () => {
    const service = uniqueName('routing');
    const c = consumer(service, { 'user.registered': recordEffect, 'user.frozen': async () => undefined });
    await c.start();
    const userId = uniqueName('smuggled');
    const frozen = buildEvent('user.frozen', { user_id: userId, reason: 'x', frozen_by: 'a', frozen_at: new Date().toISOString() }, 'identity', null);
    await publishRaw(frozen, 'user.registered');
    const parked = await takeOne(queueNames(service, exchange).dead);
    expect(JSON.parse(parked.content.toString()).id).toBe(frozen.id);
    expect(parked.properties.headers['x-last-error']).toBe('routing key user.registered is not the event type user.frozen');
  });

  it('a start against an exchange declared before it had an alternate exchange fails at once, naming the provisioning script', async () => {
    const legacy = uniqueName('test.legacy');
    const channel = await raw.createChannel();
    await channel.assertExchange(producerExchange(legacy, 'identity'), 'topic', { durable: true });
    try {
      const started = Date.now();
      await expect(Bus.connect(infra.AMQP_URL, legacy, log)).rejects.toThrow(/PRECONDITION_FAILED.*provision-broker\.mjs/);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await channel.close();
      await dropBusObjects(infra.AMQP_URL, legacy);
    }
  });

  /** Closes, from the broker's side, the one connection whose client named itself `name` (ADR 0062). */
  function closeConnectionNamed(name: string) {
    const connections = execFileSync('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '--quiet'], { encoding: 'utf8' });
    const pid = connections.split('\n').find((line) => line.includes(`"${name}"`))?.split('\t')[0];
    if (!pid) throw new Error(`no connection named ${name}`);
    execFileSync('rabbitmqctl', ['close_connection', pid, 'test: the broker closed the connection']);
  }

  /** An address of the broker's user where nothing listens: a node that is down. */
  async function deadAddress(): Promise<string> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = new URL(infra.AMQP_URL);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  }

  it('a client given several broker addresses whose first is down connects to the next one that answers', async () => {
    const live = new URL(infra.AMQP_URL);
    const listed = await Bus.connect(`${await deadAddress()},${infra.AMQP_URL}`, exchange, log, { name: uniqueName('second-address') });
    try {
      expect(listed.isConnected).toBe(true);
      expect(listed.connection.connectedTo).toBe(`${live.hostname}:${live.port || 5672}`);
      const channel = await listed.confirmChannel();
      await channel.close();
    } finally {
      await listed.close();
    }
    // the broker user is who consumers trust (ADR 0054): one for every node
    await expect(Bus.connect('amqp://market_catalog:a@rabbit-0:5672,amqp://market_orders:b@rabbit-1:5672', exchange, log)).rejects.toThrow(
      'every address in AMQP_URL must log in as the same broker user',
    );
  });

  it('a burst through a quorum queue while the broker closes the consumer\'s and the relay\'s connections mid-delivery: every event applied once, both resume by themselves', async () => {
    const consumerName = uniqueName('burst-consumer');
    const relayName = uniqueName('burst-relay');
    // the consumer lists a dead node first: it starts on the second address and, once its
    // connection is closed, passes over the dead one again on its way back
    const consumerBus = await Bus.connect(`${await deadAddress()},${infra.AMQP_URL}`, exchange, log, { name: consumerName });
    const relayBus = await Bus.connect(infra.AMQP_URL, exchange, log, { name: relayName });
    const prefix = uniqueName('burst');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let gatedId: string | null = null;
    let entered = 0;
    const c = consumer(uniqueName('burst'), {
      'user.registered': async (event, manager) => {
        entered += 1;
        if (entered === 20) {
          gatedId = event.id;
          await gate;
        }
        await recordEffect(event, manager);
      },
    }, consumerBus);
    const burstRelay = relay({ bus: relayBus, pollIntervalMs: 50, batchSize: 10 });
    let disconnects = 0;
    consumerBus.connection.on('disconnect', () => (disconnects += 1));
    try {
      await c.start();
      await burstRelay.start();
      const handled = jest.spyOn(c, 'handle');
      for (let i = 0; i < 60; i += 1) await writeEvent('user.registered', `${prefix}-${i}`);
      await until(() => gatedId !== null, 20_000);

      closeConnectionNamed(consumerName);
      closeConnectionNamed(relayName);
      // the gated handler commits now, on a channel that is gone: its ack cannot reach the broker
      release();
      for (let i = 60; i < 120; i += 1) await writeEvent('user.registered', `${prefix}-${i}`);

      const applied = async () =>
        (await consumerDb.query(`SELECT count(*)::int AS n, count(DISTINCT user_id)::int AS users FROM effects WHERE user_id LIKE $1`, [`${prefix}-%`]))[0] as {
          n: number;
          users: number;
        };
      await until(async () => (await applied()).users === 120, 30_000);
      await until(async () => (await pendingOutbox()) === 0);
      // the gated event was delivered again after the close and met the inbox, which applied nothing twice
      await until(() => handled.mock.calls.filter(([event]) => event.id === gatedId).length >= 2);
      expect(await applied()).toEqual({ n: 120, users: 120 });
      expect(disconnects).toBe(1);
      expect(consumerBus.isConnected && relayBus.isConnected && c.isConsuming).toBe(true);

      const types = execFileSync('rabbitmqctl', ['list_queues', 'name', 'type', '--quiet', '--no-table-headers'], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.split('\t'))
        .filter(([name]) => Object.values(c.queues).includes(name!));
      expect(types.map(([, type]) => type)).toEqual(['quorum', 'quorum', 'quorum']);
    } finally {
      await burstRelay.stop();
      await c.stop();
      await consumerBus.close();
      await relayBus.close();
    }
  }, 60_000);

  it('an event whose deliveries keep ending unsettled (its handler takes the consumer down each time) is parked by the consumer, not redelivered for ever', async () => {
    const poison = buildEvent('user.registered', registered(uniqueName('poison')), 'identity', null);
    let runs = 0;
    const c: InboxConsumer = consumer(uniqueName('poisoned'), {
      'user.registered': async () => {
        runs += 1;
        // as a crash would: the delivery's channel goes before anything settles it
        await c['channel']?.close();
        throw new Error('the consumer went down');
      },
    });
    // On a loaded CI machine the suite's shared connection was once down here, after the broker
    // faults before this test; the bus reconnects by itself, and start refuses at once while it is
    // down, as it should. Reconnection is the earlier tests' subject; this one is about parking.
    await until(() => bus.isConnected, 15_000);
    await c.start();
    await publishRaw(poison, 'user.registered');
    const parked = await takeOne(c.queues.dead);
    expect(JSON.parse(parked.content.toString()).id).toBe(poison.id);
    expect(parked.properties.headers['x-last-error']).toMatch(/^delivered 11 times without being settled/);
    expect(runs).toBe(10);
  }, 30_000);

  it('a service handling a type it does not declare is named at start', () => {
    expect(undeclaredHandlers('admin', { 'audit.recorded': async () => undefined })).toEqual([]);
    expect(undeclaredHandlers('admin', { 'audit.recorded': async () => undefined, 'user.frozen': async () => undefined })).toEqual(['user.frozen']);
  });
});
