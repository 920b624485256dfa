import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { connect, type ChannelModel, type Message } from 'amqplib';
import type { DataSource } from 'typeorm';
import { Bus } from '../src/events/bus';
import { buildEvent } from '../src/events/envelope';
import { InboxConsumer } from '../src/events/inbox';
import { DependencyFailed, RuleBroken } from '../src/errors';
import { BROKER_DELIVERY_LIMIT, declareConsumerQueues, DEFAULT_EXCHANGE, plumbingExchange, producerExchange, queueNames } from '../src/events/topology';
import { brokerUserOf } from '../src/events/broker-users';
import { EventWriter, OutboxRelay } from '../src/events/outbox';
import { createLogger } from '../src/logging/logger';
import { dropBusObjects, dropSchemas, resolveInfra, uniqueName, type Infra } from '../src/testing';
import { parkedAs, producerAndConsumerDbs, until, type ParkedMessage } from './bus-support';

const log = createLogger('bus-test', 'silent');


describe('event bus: outbox relay and inbox consumer against the real broker and database', () => {
  let infra: Infra;
  let exchange: string;
  let producerSchema: string;
  let consumerSchema: string;
  let producerDb: DataSource;
  let consumerDb: DataSource;
  let bus: Bus;
  let consumer: InboxConsumer;
  let rawConnection: ChannelModel;
  let failuresLeft = 0;
  let unavailableLeft = 0;
  const busName = uniqueName('bus-test');

  const serviceName = () => `bus_test_${consumerSchema}`;
  const writer = () => new EventWriter('identity', producerSchema);

  const registered = (userId: string) =>
    ({ user_id: userId, phone_masked: '138****8000', nickname: 'n', registered_at: new Date().toISOString() }) as const;

  async function effectCount(userId: string): Promise<number> {
    const [{ n }] = await consumerDb.query(`SELECT count(*)::int AS n FROM effects WHERE user_id = $1`, [userId]);
    return n;
  }

  async function writeEvent(userId: string) {
    await producerDb.transaction((m) => writer().publish(m, 'user.registered', registered(userId)));
  }

  /** Publishes `event` on identity's exchange as identity's broker user would, `times` times, and waits for the broker's confirms. */
  async function publishAsIdentity(event: ReturnType<typeof buildEvent>, times = 1) {
    const channel = await rawConnection.createConfirmChannel();
    for (let i = 0; i < times; i++) {
      channel.publish(producerExchange(exchange, 'identity'), event.type, Buffer.from(JSON.stringify(event)), {
        persistent: true,
        messageId: event.id,
        userId: brokerUserOf(infra.AMQP_URL),
      });
    }
    await channel.waitForConfirms();
    await channel.close();
  }

  /** Queues a marker event behind whatever is on the queue and waits for its effect: everything before it has been handled. */
  async function handledSoFar() {
    const marker = uniqueName('marker');
    await publishAsIdentity(buildEvent('user.registered', registered(marker), 'identity', null));
    await until(async () => (await effectCount(marker)) === 1);
  }

  function relay(afterPublish?: (ids: string[]) => Promise<void>) {
    return new OutboxRelay({
      dataSource: producerDb,
      schema: producerSchema,
      bus,
      log,
      afterPublish,
    });
  }

  beforeAll(async () => {
    infra = await resolveInfra();
    exchange = uniqueName('test.events');
    producerSchema = uniqueName('t_producer');
    consumerSchema = uniqueName('t_consumer');
    ({ producerDb, consumerDb } = await producerAndConsumerDbs(infra.DATABASE_URL, producerSchema, consumerSchema));
    bus = await Bus.connect(infra.AMQP_URL, exchange, log, busName);
    consumer = new InboxConsumer({
      service: serviceName(),
      dataSource: consumerDb,
      bus,
      log,
      maxAttempts: 3,
      baseDelayMs: 20,
      // one event at a time, in queue order: once a marker is handled, so is everything queued before it
      prefetch: 1,
      handlers: {
        'user.registered': async (event, manager) => {
          await manager.query(`INSERT INTO effects (event_id, user_id) VALUES ($1, $2)`, [event.id, event.data.user_id]);
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            throw new Error('transient failure');
          }
          if (event.data.nickname === 'poison') throw new Error('always fails');
          if (event.data.nickname === 'refused') throw new RuleBroken('NOT_APPLICABLE', 'the event contradicts this service');
          if (event.data.nickname === 'unavailable' && unavailableLeft > 0) {
            unavailableLeft -= 1;
            throw new DependencyFailed('unreachable');
          }
        },
      },
    });
    await consumer.start();
    rawConnection = await connect(infra.AMQP_URL);
  });

  afterAll(async () => {
    await consumer.stop();
    await rawConnection.close();
    await bus.close();
    await producerDb.destroy();
    await consumerDb.destroy();
    await dropSchemas(infra.DATABASE_URL, [producerSchema, consumerSchema]);
    const q = queueNames(serviceName(), exchange);
    await dropBusObjects(infra.AMQP_URL, exchange, [q.main, q.retry, q.dead]);
  });

  it('delivers an event exactly once even when the relay dies after publishing but before marking it sent', async () => {
    const userId = uniqueName('crash');
    await writeEvent(userId);

    const crashing = relay(async () => {
      throw new Error('relay process died');
    });
    await expect(crashing.drain()).rejects.toThrow('relay process died');
    const [{ pending }] = await producerDb.query(`SELECT count(*)::int AS pending FROM outbox WHERE published_at IS NULL`);
    expect(pending).toBe(1);
    await until(async () => (await effectCount(userId)) === 1);

    // A fresh relay (the restarted process) publishes the unmarked row again.
    const restarted = relay();
    expect(await restarted.drain()).toBe(1);
    await restarted.stop();
    const [{ unpublished }] = await producerDb.query(
      `SELECT count(*)::int AS unpublished FROM outbox WHERE published_at IS NULL`,
    );
    expect(unpublished).toBe(0);

    const [{ seen }] = await consumerDb.query(
      `SELECT count(*)::int AS seen FROM inbox WHERE event_id = (SELECT event_id FROM effects WHERE user_id = $1)`,
      [userId],
    );
    expect(seen).toBe(1);
    await handledSoFar();
    expect(await effectCount(userId)).toBe(1);
  });

  it('a redelivered message changes nothing', async () => {
    const userId = uniqueName('redelivery');
    await publishAsIdentity(buildEvent('user.registered', registered(userId), 'identity', null), 3);
    await until(async () => (await effectCount(userId)) === 1);
    await handledSoFar();
    expect(await effectCount(userId)).toBe(1);
  });

  it('a rolled-back transaction publishes nothing', async () => {
    const userId = uniqueName('rollback');
    await expect(
      producerDb.transaction(async (m) => {
        await writer().publish(m, 'user.registered', registered(userId));
        throw new Error('business rule failed after the event was written');
      }),
    ).rejects.toThrow('business rule failed');
    const rows = await producerDb.query(`SELECT id FROM outbox WHERE payload->'data'->>'user_id' = $1`, [userId]);
    expect(rows).toHaveLength(0);
    const r = relay();
    expect(await r.drain()).toBe(0);
    await r.stop();
    expect(await effectCount(userId)).toBe(0);
  });

  it('the running relay publishes promptly after commit', async () => {
    const userId = uniqueName('live');
    const live = relay();
    await live.start();
    try {
      await writeEvent(userId);
      await until(async () => (await effectCount(userId)) === 1, 5000);
    } finally {
      await live.stop();
    }
  });

  it('events written together land in the outbox in order, and their commit alone wakes the relay', async () => {
    const users = [uniqueName('together-a'), uniqueName('together-b'), uniqueName('together-c')];
    // polling once a minute: only the commit's wake-up can make the relay publish within the wait
    const live = new OutboxRelay({ dataSource: producerDb, schema: producerSchema, bus, log, pollIntervalMs: 60_000 });
    await live.start();
    try {
      const written = await producerDb.transaction((m) =>
        writer().publishAll(m, users.map((userId) => ({ type: 'user.registered' as const, data: registered(userId) }))),
      );
      const rows: Array<{ id: string }> = await producerDb.query(`SELECT id FROM outbox WHERE id = ANY($1::uuid[]) ORDER BY seq`, [written.map((e) => e.id)]);
      expect(rows.map((r) => r.id)).toEqual(written.map((e) => e.id));
      await until(async () => (await Promise.all(users.map(effectCount))).every((n) => n === 1), 5000);
    } finally {
      await live.stop();
    }
  });

  /**
   * A change to write with events: a counter of the first of two users (`counted(id)` bumps one and
   * answers it; an unknown id answers nothing), the two users' events, the outbox rows written for
   * them, and a relay polling once a minute, so only a commit's wake-up makes it publish in time.
   */
  async function countedChange(prefix: string) {
    const users = [uniqueName(`${prefix}-a`), uniqueName(`${prefix}-b`)];
    await producerDb.query(`CREATE TABLE IF NOT EXISTS counters (id text PRIMARY KEY, n int NOT NULL)`);
    await producerDb.query(`INSERT INTO counters (id, n) VALUES ($1, 0)`, [users[0]]);
    return {
      users,
      counted: (id: string) => ({ text: `UPDATE counters SET n = n + 1 WHERE id = $1 RETURNING id, n`, params: [id] }),
      events: users.map((userId) => ({ type: 'user.registered' as const, data: registered(userId) })),
      outboxRows: async () =>
        (await producerDb.query(`SELECT payload FROM outbox ORDER BY seq`)).filter((r: { payload: { data: { user_id: string } } }) => users.includes(r.payload.data.user_id)),
      live: new OutboxRelay({ dataSource: producerDb, schema: producerSchema, bus, log, pollIntervalMs: 60_000 }),
    };
  }

  it('writes a change and its events in one statement: the events only when the change answers a row, and the commit wakes the relay', async () => {
    const { users, counted, events, outboxRows, live } = await countedChange('with');
    await live.start();
    try {
      // no row changed: no event written, nothing answered
      expect(await producerDb.transaction((m) => writer().publishAllWith(m, counted('no-such-counter'), events))).toEqual([]);
      expect(await outboxRows()).toHaveLength(0);

      const answered = await producerDb.transaction((m) => writer().publishAllWith<{ id: string; n: number }>(m, counted(users[0]), events));
      expect(answered).toEqual([{ id: users[0], n: 1 }]);
      expect((await outboxRows()).map((r: { payload: { data: { user_id: string } } }) => r.payload.data.user_id)).toEqual(users);
      // polling once a minute: only the commit's wake-up can make the relay publish within the wait
      await until(async () => (await Promise.all(users.map(effectCount))).every((n) => n === 1), 5000);

      // rolled back with its transaction, change and events alike
      await expect(
        producerDb.transaction(async (m) => {
          await writer().publishAllWith(m, counted(users[0]), events);
          throw new Error('abandoned');
        }),
      ).rejects.toThrow('abandoned');
      expect((await producerDb.query(`SELECT n FROM counters WHERE id = $1`, [users[0]]))[0].n).toBe(1);
      expect(await outboxRows()).toHaveLength(2);
      await expect(writer().publishAllWith(producerDb.manager, counted(users[0]), events)).rejects.toThrow('must be written inside a transaction');
    } finally {
      await live.stop();
    }
  });

  it('commits a change and its events as one statement of their own, told to the committed-event and commit listeners at once', async () => {
    const { users, counted, events, outboxRows, live } = await countedChange('alone');
    const told: Array<{ tx: unknown; type: string }> = [];
    let commits = 0;
    const telling = new EventWriter('identity', producerSchema, (tx, event) => told.push({ tx, type: event.type }), () => (commits += 1));
    await live.start();
    try {
      expect(await telling.commitAllWith(producerDb.manager, counted('no-such-counter'), events)).toEqual([]);
      expect(await outboxRows()).toHaveLength(0);
      expect([told, commits]).toEqual([[], 0]);

      expect(await telling.commitAllWith(producerDb.manager, counted(users[0]), events)).toEqual([{ id: users[0], n: 1 }]);
      expect((await outboxRows()).map((r: { payload: { data: { user_id: string } } }) => r.payload.data.user_id)).toEqual(users);
      expect(told).toEqual([{ tx: null, type: 'user.registered' }, { tx: null, type: 'user.registered' }]);
      expect(commits).toBe(1);
      // committed as it answered: the relay, polling once a minute, is woken by that commit
      await until(async () => (await Promise.all(users.map(effectCount))).every((n) => n === 1), 5000);

      // a statement that fails writes neither the change nor its events
      await expect(telling.commitAllWith(producerDb.manager, { text: `UPDATE counters SET n = n / 0 WHERE id = $1 RETURNING id, n`, params: [users[0]] }, events)).rejects.toThrow(/division by zero/);
      expect((await producerDb.query(`SELECT n FROM counters WHERE id = $1`, [users[0]]))[0].n).toBe(1);
      expect(await outboxRows()).toHaveLength(2);
      await expect(producerDb.transaction((m) => telling.commitAllWith(m, counted(users[0]), events))).rejects.toThrow('must not be written inside a transaction');
    } finally {
      await live.stop();
    }
  });

  it('a failing handler is retried with backoff and its partial effect rolled back each time', async () => {
    const userId = uniqueName('retry');
    failuresLeft = 2;
    await writeEvent(userId);
    const r = relay();
    await r.drain();
    await until(async () => failuresLeft === 0 && (await effectCount(userId)) === 1);
    await handledSoFar();
    expect(await effectCount(userId)).toBe(1);
  });

  it('an event that keeps failing lands in the dead-letter queue and records no effect', async () => {
    const userId = uniqueName('poison');
    await producerDb.transaction((m) =>
      writer().publish(m, 'user.registered', { ...registered(userId), nickname: 'poison' }),
    );
    await relay().drain();
    expect(parkedAs(await parkedMessage())).toEqual({ userId, attempts: 3, lastError: 'always fails' });
    expect(await effectCount(userId)).toBe(0);
  });

  async function parkedMessage(): Promise<ParkedMessage> {
    const channel = await rawConnection.createChannel();
    const dead = queueNames(serviceName(), exchange).dead;
    let parked: Awaited<ReturnType<typeof channel.get>> = false;
    await until(async () => {
      parked = await channel.get(dead, { noAck: true });
      return parked !== false;
    });
    await channel.close();
    return parked as unknown as ParkedMessage;
  }

  it('a permanent domain error from a handler parks the event at once, without retries', async () => {
    const userId = uniqueName('refused');
    await producerDb.transaction((tx) => writer().publish(tx, 'user.registered', { ...registered(userId), nickname: 'refused' }));
    await relay().drain();
    expect(parkedAs(await parkedMessage())).toEqual({ userId, attempts: 1, lastError: 'the event contradicts this service' });
    expect(await effectCount(userId)).toBe(0);
  });

  it('a transient domain error from a handler is retried until it succeeds', async () => {
    const userId = uniqueName('unavailable');
    unavailableLeft = 2;
    await producerDb.transaction((tx) => writer().publish(tx, 'user.registered', { ...registered(userId), nickname: 'unavailable' }));
    await relay().drain();
    await until(async () => unavailableLeft === 0 && (await effectCount(userId)) === 1);
    expect(await effectCount(userId)).toBe(1);
  });

  it('loses nothing when the broker drops the connection: relay and consumer recover', async () => {
    const live = relay();
    await live.start();
    try {
      const before = uniqueName('before-drop');
      await writeEvent(before);
      await until(async () => (await effectCount(before)) === 1);

      // What the broker does when it restarts or an operator kills the connection.
      const connections = execFileSync('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '--quiet'], { encoding: 'utf8' });
      const pid = connections.split('\n').find((line) => line.includes(busName))?.split('\t')[0];
      expect(pid).toBeDefined();
      execFileSync('rabbitmqctl', ['close_connection', pid!, 'test: broker dropped the connection']);

      const during = uniqueName('after-drop');
      await writeEvent(during);
      await until(async () => (await effectCount(during)) === 1, 20_000);
      const [{ pending }] = await producerDb.query(`SELECT count(*)::int AS pending FROM outbox WHERE published_at IS NULL`);
      expect(pending).toBe(0);
    } finally {
      await live.stop();
    }
  }, 30_000);
});

describe('the operator DLQ tool (npm run dlq)', () => {
  it('lists parked messages without removing them, and replays them onto the main queue, those the broker parked at its delivery limit vouched for as sent', async () => {
    const infra = await resolveInfra();
    const service = uniqueName('dlq_tool');
    const queues = queueNames(service);
    const connection = await connect(infra.AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      await declareConsumerQueues(channel, DEFAULT_EXCHANGE, service, []);
      const event = buildEvent('user.unfrozen', { user_id: 'u-1', unfrozen_by: 'a-1', unfrozen_at: new Date().toISOString() }, 'identity', null);
      channel.sendToQueue(queues.dead, Buffer.from(JSON.stringify(event)), {
        persistent: true,
        headers: { 'x-attempts': 6, 'x-last-error': 'handler exploded' },
      });
      // one that no consumer ever settled: the broker parks it after BROKER_DELIVERY_LIMIT + 1 deliveries
      const unsettled = buildEvent('user.unfrozen', { user_id: 'u-2', unfrozen_by: 'a-1', unfrozen_at: new Date().toISOString() }, 'identity', null);
      const sender = brokerUserOf(infra.AMQP_URL);
      channel.sendToQueue(queues.main, Buffer.from(JSON.stringify(unsettled)), { persistent: true, userId: sender });
      await channel.waitForConfirms();
      for (let delivery = 0; delivery <= BROKER_DELIVERY_LIMIT; delivery += 1) {
        const message = await channel.get(queues.main, { noAck: false });
        expect(message).not.toBe(false);
        channel.nack(message as Message, false, true);
      }
      await until(async () => (await channel.checkQueue(queues.dead)).messageCount === 2);
      expect((await channel.checkQueue(queues.main)).messageCount).toBe(0);

      const tool = (...args: string[]) =>
        execFileSync(process.execPath, [path.resolve(__dirname, '../../../scripts/dlq.mjs'), ...args], {
          env: { ...process.env, AMQP_URL: infra.AMQP_URL },
          encoding: 'utf8',
        });
      const listed = tool('list', service);
      expect(listed).toContain(event.id);
      expect(listed).toContain(unsettled.id);
      expect(listed).toContain('handler exploded');
      expect((await channel.checkQueue(queues.dead)).messageCount).toBe(2);

      expect(tool('replay', service)).toContain('replayed 2 message(s)');
      expect((await channel.checkQueue(queues.dead)).messageCount).toBe(0);
      const replayed = new Map<string, Message>();
      for (let i = 0; i < 2; i += 1) {
        const message = (await channel.get(queues.main, { noAck: true })) as Message;
        replayed.set(JSON.parse(message.content.toString()).id, message);
      }
      expect(replayed.get(event.id)!.properties.headers?.['x-attempts']).toBeUndefined();
      expect(replayed.get(unsettled.id)!.properties.headers?.['x-broker-user']).toBe(sender);
      for (const queue of Object.values(queues)) await channel.deleteQueue(queue);
      await channel.deleteExchange(plumbingExchange(service));
      await channel.close();
    } finally {
      await connection.close();
    }
  });
});
