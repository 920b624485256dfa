import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import type { DataSource } from 'typeorm';
import { Bus } from '../src/events/bus';
import { buildEvent, type DomainEvent } from '../src/events/envelope';
import { InboxConsumer } from '../src/events/inbox';
import { EventWriter } from '../src/events/outbox';
import { declareTopology, legacyQueueNames, legacyUnroutedQueue, plumbingExchange, producerExchange, queueNames, unroutedNames } from '../src/events/topology';
import { migrateLegacyQueues } from '../src/events/queue-migration';
import { createLogger } from '../src/logging/logger';
import { dropSchemas, provisionTestBroker, resolveInfra, uniqueName, type TestBroker } from '../src/testing';
import { producerAndConsumerDbs, until } from './bus-support';

const script = path.resolve(__dirname, '../../../scripts/provision-broker.mjs');
const log = createLogger('bus-provision-test', 'silent');

const alert = (service: string, subject: string) => ({
  alert: 'PROBE',
  severity: 'info' as const,
  service,
  summary: 'a probe',
  subject_type: 'probe',
  subject_id: subject,
  detail: {},
  raised_at: new Date().toISOString(),
});

/** Publishes on a fresh confirm channel and resolves with what the broker said: 'ok', or the error that closed the channel. */
async function attempt(connection: ChannelModel, send: (channel: Channel) => unknown): Promise<string> {
  const channel = await connection.createConfirmChannel();
  let closedWith: Error | null = null;
  channel.on('error', (err: Error) => (closedWith = err));
  try {
    await send(channel);
    await channel.waitForConfirms();
    await channel.close();
    return 'ok';
  } catch (err) {
    return (closedWith ?? (err as Error)).message;
  }
}

const body = (event: DomainEvent) => Buffer.from(JSON.stringify(event));

describe('broker provisioning (scripts/provision-broker.mjs): a service user writes only its own exchange, its own types', () => {
  const exchange = uniqueName('test.provision');
  const password = uniqueName('pw');
  let broker: TestBroker;
  let prefix: string;
  let catalogUrl: string;

  beforeAll(async () => {
    const { AMQP_URL } = await resolveInfra();
    broker = await provisionTestBroker(AMQP_URL, exchange);
    prefix = `${broker.vhost}_p_`;
    const provision = () =>
      execFileSync(process.execPath, [script], {
        env: {
          ...process.env,
          AMQP_ADMIN_URL: broker.adminUrl,
          AMQP_VHOST: broker.vhost,
          EVENTS_EXCHANGE: exchange,
          MARKET_AMQP_USER_PREFIX: prefix,
          MARKET_AMQP_SERVICES: 'catalog',
          MARKET_AMQP_PASSWORDS: `catalog:${password}`,
        },
        encoding: 'utf8',
      });
    expect(provision()).toContain(`${prefix}catalog: may publish listing.submitted`);
    // Idempotent: a second run changes the password in place and re-applies the permissions.
    provision();
    const url = new URL(broker.adminUrl);
    url.username = `${prefix}catalog`;
    url.password = password;
    catalogUrl = url.toString();
  }, 60_000);

  afterAll(async () => {
    if (prefix) execFileSync('rabbitmqctl', ['delete_user', `${prefix}catalog`, '--quiet']);
    await broker?.close();
  });

  it('the service starts on the topology the provisioning declared, declaring nothing itself', async () => {
    const bus = await Bus.connect(catalogUrl, exchange, log, { service: 'catalog' });
    expect(bus.user).toBe(`${prefix}catalog`);
    await bus.close();
  });

  it('the broker refuses another type, another exchange, the default exchange, a forged user_id, declaring and reading another queue', async () => {
    const connection = await connect(catalogUrl);
    connection.on('error', () => undefined);
    try {
      const own = buildEvent('ops.alert', alert('catalog', 'own'), 'catalog', null);
      const options = { persistent: true, userId: `${prefix}catalog` };
      expect(await attempt(connection, (c) => c.publish(producerExchange(exchange, 'catalog'), own.type, body(own), options))).toBe('ok');
      // the broker refuses before anything reads the body
      const closed = Buffer.from('{}');
      expect(await attempt(connection, (c) => c.publish(producerExchange(exchange, 'catalog'), 'order.closed', closed, options))).toMatch(
        /ACCESS_REFUSED.*topic 'order\.closed'/,
      );
      expect(await attempt(connection, (c) => c.publish(producerExchange(exchange, 'orders'), 'order.closed', closed, options))).toMatch(
        /ACCESS_REFUSED.*exchange '.*\.orders'/,
      );
      expect(await attempt(connection, (c) => c.sendToQueue(queueNames('wallet', exchange).main, closed, options))).toMatch(
        /ACCESS_REFUSED.*amq\.default/,
      );
      expect(await attempt(connection, (c) => c.publish(plumbingExchange('wallet', exchange), 'retry', closed, options))).toMatch(
        /ACCESS_REFUSED/,
      );
      expect(
        await attempt(connection, (c) => c.publish(producerExchange(exchange, 'catalog'), own.type, body(own), { ...options, userId: `${prefix}orders` })),
      ).toMatch(/PRECONDITION_FAILED.*user_id/);
      expect(await attempt(connection, (c) => c.deleteQueue(queueNames('catalog', exchange).main))).toMatch(/ACCESS_REFUSED/);
      expect(await attempt(connection, (c) => c.consume(queueNames('admin', exchange).main, () => undefined))).toMatch(/ACCESS_REFUSED/);
    } finally {
      await connection.close().catch(() => undefined);
    }
  });
});

describe('a consumer trusts only what the broker vouches for (ADR 0054)', () => {
  const exchange = uniqueName('test.forgery');
  const consumerSchema = uniqueName('t_notify');
  const producerSchema = uniqueName('t_unused');
  let broker: TestBroker;
  let consumerDb: DataSource;
  let producerDb: DataSource;
  let bus: Bus;
  let consumer: InboxConsumer;
  let catalog: ChannelModel;
  let operator: ChannelModel;

  async function effects(subject: string): Promise<number> {
    const [{ n }] = await consumerDb.query(`SELECT count(*)::int AS n FROM effects WHERE user_id = $1`, [subject]);
    return n;
  }

  beforeAll(async () => {
    const infra = await resolveInfra();
    broker = await provisionTestBroker(infra.AMQP_URL, exchange);
    ({ producerDb, consumerDb } = await producerAndConsumerDbs(infra.DATABASE_URL, producerSchema, consumerSchema));
    bus = await Bus.connect(broker.urlOf('notify'), exchange, log, { service: 'notify' });
    consumer = new InboxConsumer({
      service: 'notify',
      dataSource: consumerDb,
      bus,
      log,
      events: new EventWriter('notify', consumerSchema),
      handlers: {
        'ops.alert': async (event, tx) => {
          await tx.query(`INSERT INTO effects (event_id, user_id) VALUES ($1, $2)`, [event.id, event.data.subject_id]);
        },
      },
    });
    await consumer.start();
    catalog = await connect(broker.urlOf('catalog'));
    operator = await connect(broker.adminUrl);
  }, 60_000);

  afterAll(async () => {
    await consumer?.stop();
    await bus?.close();
    await catalog?.close();
    await operator?.close();
    await producerDb?.destroy();
    await consumerDb?.destroy();
    await dropSchemas((await resolveInfra()).DATABASE_URL, [consumerSchema, producerSchema]);
    await broker?.close();
  });

  const publishAsCatalog = (event: DomainEvent) =>
    attempt(catalog, (c) =>
      c.publish(producerExchange(exchange, 'catalog'), event.type, body(event), { persistent: true, messageId: event.id, userId: new URL(broker.urlOf('catalog')).username }),
    );

  it('applies what its producer sent on its own exchange', async () => {
    const subject = uniqueName('genuine');
    expect(await publishAsCatalog(buildEvent('ops.alert', alert('catalog', subject), 'catalog', null))).toBe('ok');
    await until(async () => (await effects(subject)) === 1);
  });

  it('parks and alerts on an event whose envelope names another producer than the broker user that sent it; nothing applied', async () => {
    const subject = uniqueName('forged');
    const forged = buildEvent('ops.alert', alert('wallet', subject), 'wallet', null);
    expect(await publishAsCatalog(forged)).toBe('ok');

    const channel = await operator.createChannel();
    let parked: Awaited<ReturnType<Channel['get']>> = false;
    await until(async () => Boolean((parked = await channel.get(queueNames('notify', exchange).dead, { noAck: true }))));
    await channel.close();
    const message = parked as unknown as { content: Buffer; properties: { headers: Record<string, unknown> } };
    expect(JSON.parse(message.content.toString()).id).toBe(forged.id);
    expect(message.properties.headers['x-last-error']).toMatch(/envelope names wallet but broker user .*_catalog is catalog/);
    expect(message.properties.headers['x-broker-user']).toBe(new URL(broker.urlOf('catalog')).username);

    let alerts: Array<{ payload: DomainEvent<'ops.alert'> }> = [];
    await until(async () => {
      alerts = await consumerDb.query(`SELECT payload FROM outbox WHERE type = 'ops.alert'`);
      return alerts.some((row) => row.payload.data.subject_id === forged.id);
    });
    const raised = alerts.find((row) => row.payload.data.subject_id === forged.id)!.payload.data;
    expect(raised).toMatchObject({ alert: 'EVENT_UNTRUSTED', severity: 'critical', service: 'notify' });
    expect(await effects(subject)).toBe(0);
  });

  it('an upgrade from the classic queues of an earlier release loses no queued event: the provisioning empties them into the quorum queues, and what they held is applied once', async () => {
    const legacy = legacyQueueNames('notify', exchange);
    const current = queueNames('notify', exchange);
    const plumbing = plumbingExchange('notify', exchange);
    const unrouted = unroutedNames(exchange);
    const catalogUser = new URL(broker.urlOf('catalog')).username;
    // The broker as the earlier release left it: notify's classic queues hold the bindings.
    const setup = await operator.createChannel();
    await setup.assertQueue(legacy.main, { durable: true });
    await setup.assertQueue(legacy.retry, { durable: true, arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': legacy.main } });
    await setup.assertQueue(legacy.dead, { durable: true });
    await setup.assertQueue(legacyUnroutedQueue(exchange), { durable: true });
    await setup.bindQueue(legacy.main, producerExchange(exchange, 'catalog'), 'ops.alert');
    await setup.unbindQueue(current.main, producerExchange(exchange, 'catalog'), 'ops.alert');
    for (const [queue, key] of [[legacy.retry, 'retry'], [legacy.dead, 'dead']] as const) {
      await setup.unbindQueue(key === 'retry' ? current.retry : current.dead, plumbing, key);
      await setup.bindQueue(queue, plumbing, key);
    }
    await setup.unbindQueue(unrouted.queue, unrouted.exchange, '');
    await setup.bindQueue(legacyUnroutedQueue(exchange), unrouted.exchange, '');

    // Queued there: events not yet consumed, one waiting (long) for its retry, one parked, one held unrouted.
    const waiting = Array.from({ length: 3 }, () => buildEvent('ops.alert', alert('catalog', uniqueName('queued')), 'catalog', null));
    for (const event of waiting) expect(await publishAsCatalog(event)).toBe('ok');
    const retried = buildEvent('ops.alert', alert('catalog', uniqueName('retried')), 'catalog', null);
    const parked = buildEvent('ops.alert', alert('catalog', uniqueName('parked')), 'catalog', null);
    const notify = await connect(broker.urlOf('notify'));
    const asNotify = { persistent: true, userId: new URL(broker.urlOf('notify')).username };
    expect(
      await attempt(notify, (c) => {
        c.publish(plumbing, 'retry', body(retried), { ...asNotify, expiration: '600000', headers: { 'x-broker-user': catalogUser, 'x-attempts': 1 } });
        c.publish(plumbing, 'dead', body(parked), { ...asNotify, headers: { 'x-broker-user': catalogUser, 'x-last-error': 'parked before the upgrade' } });
      }),
    ).toBe('ok');
    await notify.close();
    setup.sendToQueue(legacyUnroutedQueue(exchange), Buffer.from('held'), { persistent: true });
    await until(async () => (await setup.checkQueue(legacy.main)).messageCount === 3);
    await setup.close();
    expect(await effects(waiting[0]!.data.subject_id!)).toBe(0);

    // The provisioning of the new release.
    const declaring = await operator.createChannel();
    await declareTopology(declaring, exchange);
    await declaring.close();
    const report = await migrateLegacyQueues(operator, exchange);

    expect(report.moved).toEqual({ [legacy.main]: 3, [legacy.retry]: 1, [legacy.dead]: 1, [legacyUnroutedQueue(exchange)]: 1 });
    expect(report.deleted.sort()).toEqual([legacy.main, legacy.retry, legacy.dead, legacyUnroutedQueue(exchange)].sort());
    expect(report.inUse).toEqual([]);
    for (const event of [...waiting, retried]) await until(async () => (await effects(event.data.subject_id!)) === 1);
    const inspect = await operator.createChannel();
    const stillParked = await inspect.get(current.dead, { noAck: true });
    expect(stillParked && JSON.parse(stillParked.content.toString()).id).toBe(parked.id);
    expect(stillParked && stillParked.properties.headers?.['x-last-error']).toBe('parked before the upgrade');
    const held = await inspect.get(unrouted.queue, { noAck: true });
    expect(held && held.content.toString()).toBe('held');
    await inspect.close();
    const queues = execFileSync('rabbitmqctl', ['list_queues', '-p', broker.vhost, 'name', 'type', '--quiet', '--no-table-headers'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(queues.map(([name]) => name)).not.toContain(legacy.main);
    expect(new Set(queues.map(([, type]) => type))).toEqual(new Set(['quorum']));

    // A classic queue a process of the earlier release still consumes stays, until a later run finds it free.
    const oldRelease = await operator.createChannel();
    await oldRelease.assertQueue(legacy.dead, { durable: true });
    const { consumerTag } = await oldRelease.consume(legacy.dead, () => undefined);
    expect((await migrateLegacyQueues(operator, exchange)).inUse).toEqual([legacy.dead]);
    await oldRelease.cancel(consumerTag);
    await oldRelease.close();
    expect(await migrateLegacyQueues(operator, exchange)).toEqual({ moved: {}, deleted: [legacy.dead], inUse: [] });
  }, 60_000);
});

describe('a test broker leaves nothing behind', () => {
  it('closing it deletes its vhost and every user it made', async () => {
    const broker = await provisionTestBroker((await resolveInfra()).AMQP_URL, uniqueName('test.leftovers'));
    const ours = (listing: string) => listing.split('\n').filter((line) => line.startsWith(broker.vhost));
    expect(ours(execFileSync('rabbitmqctl', ['list_users', '--quiet', '--no-table-headers'], { encoding: 'utf8' }))).toHaveLength(8);
    await broker.close();
    expect(ours(execFileSync('rabbitmqctl', ['list_users', '--quiet', '--no-table-headers'], { encoding: 'utf8' }))).toEqual([]);
    expect(ours(execFileSync('rabbitmqctl', ['list_vhosts', '--quiet', '--no-table-headers'], { encoding: 'utf8' }))).toEqual([]);
  }, 30_000);
});
