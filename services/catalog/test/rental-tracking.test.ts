import { v7 as uuidv7 } from 'uuid';
import type { ServiceContext } from '@market/shared/service';
import { api, startStack, type Stack } from '@market/testkit';
import { recordRentals, rentalEnded, rentalStarted } from '../src/application/track-rentals';
import { eventually, listingBody, newUser } from './support';

describe('rented under concurrent order events', () => {
  let stack: Stack;
  let db: ServiceContext['db'];
  let events: ServiceContext['events'];

  beforeAll(async () => {
    stack = await startStack({ services: ['catalog'] });
    db = stack.services.catalog!.ctx.db;
    events = stack.services.catalog!.ctx.events;
  });
  afterAll(() => stack?.stop());

  async function newListing(): Promise<string> {
    const res = await api(stack.url).post('/api/listings', listingBody(), newUser().token);
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const rented = async (listingId: string): Promise<boolean> =>
    (await db.query(`SELECT rented FROM listings WHERE id = $1`, [listingId]))[0].rented;

  it('stays true when one order ends while another starts on the same listing in a concurrent transaction', async () => {
    const listingId = await newListing();
    const orderA = uuidv7();
    const orderB = uuidv7();
    await db.transaction((manager) => recordRentals(manager, events, [rentalStarted(orderA, listingId)]));
    expect(await rented(listingId)).toBe(true);

    // Order B's handler has done its work but not committed when order A's end is handled.
    let commitB!: () => void;
    let startedB!: (pid: number) => void;
    const bDone = new Promise<number>((resolve) => (startedB = resolve));
    const bTransaction = db.transaction(async (manager) => {
      const [{ pid }] = await manager.query(`SELECT pg_backend_pid() AS pid`);
      await recordRentals(manager, events, [rentalStarted(orderB, listingId)]);
      startedB(pid);
      await new Promise<void>((resolve) => (commitB = resolve));
    });
    const pidB = await bDone;
    const aTransaction = db.transaction((manager) => recordRentals(manager, events, [rentalEnded(orderA, listingId, new Date().toISOString(), false)]));
    await eventually(
      async () => (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pidB]))[0].n,
      (n) => n > 0,
    );
    commitB();
    await Promise.all([aTransaction, bTransaction]);

    expect(await rented(listingId)).toBe(true);
  });

  it('records a batch’s run of order events on several listings with their locks taken together, in an order two batches share', async () => {
    const [first, second] = [await newListing(), await newListing()];
    // runs naming the two listings in opposite orders, side by side: locks taken event by event
    // in delivery order would leave each transaction holding one listing and waiting for the other
    const pairs = Array.from({ length: 10 }, () => [uuidv7(), uuidv7()] as const);
    await Promise.all(
      pairs.flatMap(([a, b]) => [
        db.transaction((manager) => recordRentals(manager, events, [rentalStarted(a, first), rentalStarted(b, second)])),
        db.transaction((manager) => recordRentals(manager, events, [rentalEnded(b, second, new Date().toISOString(), false), rentalEnded(a, first, new Date().toISOString(), false)])),
      ]),
    );
    const rows: Array<{ n: number; ended: number }> = await db.query(
      `SELECT count(*)::int AS n, count(ended_at)::int AS ended FROM listing_rentals WHERE order_id = ANY($1::uuid[])`,
      [pairs.flat()],
    );
    expect(rows[0]).toEqual({ n: 20, ended: 20 });
    expect([await rented(first), await rented(second)]).toEqual([false, false]);
  });
});
