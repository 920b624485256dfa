import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { connect } from 'amqplib';
import { Bus } from '../src/events/bus';
import { buildEvent } from '../src/events/envelope';
import { queueNames } from '../src/events/topology';
import { createLogger } from '../src/logging/logger';
import { dropBusObjects, resolveInfra, uniqueName } from '../src/testing';

const script = path.resolve(__dirname, '../../../scripts/provision-broker.mjs');
const log = createLogger('bus-provision-test', 'silent');

describe('broker provisioning (scripts/provision-broker.mjs): one user per service, publishing only its own types', () => {
  const exchange = uniqueName('test.provision');
  const prefix = `${uniqueName('t')}_`;
  const user = `${prefix}catalog`;
  const password = uniqueName('pw');
  let serviceUrl: string;
  let amqpUrl: string;

  const provision = () =>
    execFileSync(process.execPath, [script], {
      env: {
        ...process.env,
        AMQP_ADMIN_URL: amqpUrl,
        EVENTS_EXCHANGE: exchange,
        MARKET_AMQP_USER_PREFIX: prefix,
        MARKET_AMQP_SERVICES: 'catalog',
        MARKET_AMQP_PASSWORDS: `catalog:${password}`,
      },
      encoding: 'utf8',
    });

  beforeAll(async () => {
    amqpUrl = (await resolveInfra()).AMQP_URL;
    const url = new URL(amqpUrl);
    url.username = user;
    url.password = password;
    serviceUrl = url.toString();
    // An exchange from before the alternate exchange, as an upgraded broker has it.
    const admin = await connect(amqpUrl);
    const channel = await admin.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await admin.close();
    const first = provision();
    expect(first).toContain(`re-created exchange ${exchange} with its alternate exchange`);
    expect(first).toContain(`${user}: may publish listing.submitted`);
    // Idempotent: a second run changes the password in place and re-applies the permissions.
    provision();
  }, 60_000);

  afterAll(async () => {
    execFileSync('rabbitmqctl', ['delete_user', user, '--quiet']);
    await dropBusObjects(amqpUrl, exchange);
  });

  it('the service user declares the whole topology and publishes its own types, but the broker refuses another service\'s routing key', async () => {
    const bus = await Bus.connect(serviceUrl, exchange, log);
    await bus.close();

    const connection = await connect(serviceUrl);
    try {
      const own = await connection.createConfirmChannel();
      const listing = buildEvent(
        'listing.approved',
        {
          listing_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
          owner_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
          title: 't',
          game: 'g',
          hourly_price: 100,
          deposit: 100,
          min_hours: 1,
          max_hours: null,
          status: 'online',
          review_status: 'approved',
          updated_at: new Date().toISOString(),
        },
        'catalog',
        null,
      );
      own.publish(exchange, listing.type, Buffer.from(JSON.stringify(listing)), { mandatory: true });
      // Retries and the DLQ go through the default exchange into its own queues, which it consumes.
      own.sendToQueue(queueNames('catalog', exchange).dead, Buffer.from(JSON.stringify(listing)));
      await own.waitForConfirms();
      const { consumerTag } = await own.consume(queueNames('catalog', exchange).main, () => undefined);
      await own.cancel(consumerTag);
      await own.close();

      const foreign = await connection.createConfirmChannel();
      const closed = new Promise<Error>((resolve) => foreign.on('error', resolve));
      foreign.publish(exchange, 'order.created', Buffer.from('{}'));
      await expect(foreign.waitForConfirms()).rejects.toBeDefined();
      expect((await closed).message).toMatch(/ACCESS_REFUSED.*order\.created/);
    } finally {
      await connection.close().catch(() => undefined);
    }
  });

  it('the service user cannot read another service\'s queue', async () => {
    const connection = await connect(serviceUrl);
    try {
      const channel = await connection.createChannel();
      const closed = new Promise<Error>((resolve) => channel.on('error', resolve));
      await expect(channel.consume(queueNames('admin', exchange).main, () => undefined)).rejects.toBeDefined();
      expect((await closed).message).toMatch(/ACCESS_REFUSED/);
    } finally {
      await connection.close().catch(() => undefined);
    }
  });
});
