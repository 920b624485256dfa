import { Client } from 'pg';
import { ChannelListener } from '../src/events/channel-listener';
import { createLogger } from '../src/logging/logger';
import { resolveInfra, uniqueName } from '../src/testing';
import { until } from './bus-support';

const log = createLogger('channel-listener-test', 'silent');

describe('a Postgres channel listened to for as long as it is started', () => {
  let url: string;
  let sender: Client;
  let listener: ChannelListener;
  const channel = uniqueName('Test_Channel');
  const received: string[] = [];
  const listening: boolean[] = [];

  beforeAll(async () => {
    url = (await resolveInfra()).DATABASE_URL;
    sender = new Client({ connectionString: url });
    await sender.connect();
    listener = new ChannelListener({
      databaseUrl: url,
      channel,
      log,
      relistenMs: 50,
      onNotification: (payload) => received.push(payload),
      onListening: (on) => listening.push(on),
    });
    await listener.start();
  });
  afterAll(async () => {
    await listener?.stop();
    await sender?.end();
  });

  const notify = (payload: string) => sender.query(`SELECT pg_notify($1, $2)`, [channel, payload]);

  it('hears what a transaction sends once it commits, and nothing of one rolled back', async () => {
    expect(listening).toEqual([true]);
    await sender.query('BEGIN');
    await notify('rolled back');
    await sender.query('ROLLBACK');
    await sender.query('BEGIN');
    await notify('committed');
    expect(received).toEqual([]);
    await sender.query('COMMIT');
    await until(() => received.length > 0);
    expect(received).toEqual(['committed']);
  });

  it('tells when its connection is lost and when it listens again, and hears what is sent after', async () => {
    // the listener's own session, ended as a failover or an operator would end it
    await sender.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`, [`LISTEN "${channel}"`]);
    await until(() => listening.length === 3);
    expect(listening).toEqual([true, false, true]);
    await notify('after the loss');
    await until(() => received.includes('after the loss'));
  });

  it('tells it stopped listening when stopped, and is not told of notifications after', async () => {
    await listener.stop();
    expect(listening.at(-1)).toBe(false);
    await notify('too late');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).not.toContain('too late');
  });
});
