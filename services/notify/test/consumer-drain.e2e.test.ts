import { Client } from 'pg';
import { startService, type RunningService } from '@market/shared/service';
import { eventually, newUser, publishEvent, startStack, type Stack } from '@market/testkit';
import { serviceEnv } from '@market/shared/testing';
import { notifyService } from '../src/service';
import { orderSnapshot } from './support';

const BURST = 120;

/**
 * A consumer stopping in the middle of a burst of events (what SIGTERM runs): it takes no more
 * messages, finishes the ones it holds, and whatever it had not settled goes to the next process
 * on the same queue. Nothing is lost, nothing is applied twice, nothing is dead-lettered.
 */
describe('an event consumer stopped in the middle of a burst', () => {
  let stack: Stack;
  let successor: RunningService | null = null;
  /** a connection of the test's own: the stopped process's pool is gone */
  let db: Client;

  beforeAll(async () => {
    stack = await startStack({ services: ['notify'] });
    db = new Client({ connectionString: String(stack.env.DATABASE_URL) });
    await db.connect();
  }, 30_000);

  afterAll(async () => {
    await db.end();
    await successor?.stop();
    await stack.stop();
  });

  it('finishes what it holds and leaves the rest to the next process', async () => {
    const first = stack.services.notify!;
    const renter = newUser();
    const owner = newUser();
    const published = await Promise.all(Array.from({ length: BURST }, () => publishEvent(stack, 'order.paid', orderSnapshot(renter, owner))));
    const ids = published.map((e) => e.id);

    // stop once the consumer is under way, not before it started nor after it finished
    const handledSoFar = async () =>
      (await db.query(`SELECT count(*)::int AS n FROM "${first.ctx.schema}".inbox WHERE event_id = ANY($1)`, [ids])).rows[0].n as number;
    await eventually(handledSoFar, (n) => n > 0, 15_000);
    await first.stop();
    const atStop = await handledSoFar();
    // it stopped in the middle: some handled, some left
    expect(atStop).toBeGreaterThan(0);
    expect(atStop).toBeLessThan(BURST);
    expect(first.consumer.isConsuming).toBe(false);
    // a stopped process takes nothing more: its database pool is closed, so nothing more can commit
    await expect(first.ctx.db.query('SELECT 1')).rejects.toThrow();
    expect(await handledSoFar()).toBe(atStop);

    successor = await startService(notifyService, { ...serviceEnv(stack.env, 'notify'), DB_SCHEMA: first.ctx.schema, PORT: '0', SHUTDOWN_GRACE_MS: '0' });
    await eventually(handledSoFar, (n) => n === BURST, 30_000);

    // each event's notification exactly once: the owner is told to hand over, once per order
    const [{ n, orders }] = await successor.ctx.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS orders FROM notifications WHERE user_id = $1 AND event_id = ANY($2)`,
      [owner.id, ids],
    );
    expect(orders).toBe(BURST);
    expect(n).toBe(BURST);
    // written a batch's run at a time (one statement for a run of one type), numbered without a gap
    const seqs = await successor.ctx.db.query(`SELECT seq::int AS seq FROM notifications WHERE user_id = $1 ORDER BY seq`, [owner.id]);
    expect(seqs.map((row: { seq: number }) => row.seq)).toEqual(Array.from({ length: BURST }, (_, i) => i + 1));
    const dlq = await (await fetch(`${successor.url}/metrics`)).text();
    expect(dlq).toMatch(/market_events_dlq_depth\{service="notify"\} 0/);
  }, 90_000);
});
