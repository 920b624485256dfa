import type { DataSource } from 'typeorm';
import { createDataSource, initializeDataSource } from '../src/db';
import { CreateOutboxAndInbox1763800000000, EventWriter } from '../src/events';
import { onOutboxCommitted } from '../src/events/relay-wakeups';
import { dropSchemas, resolveInfra, uniqueName } from '../src/testing';

const registered = (userId: string) => ({ type: 'user.registered' as const, data: { user_id: userId, phone_masked: '138****0000', nickname: 'n', registered_at: new Date().toISOString() } });

/**
 * The relays of a process are woken by the commits that wrote their schema's outbox (ADR 0079):
 * counted here by a registered wake-up, on real transactions.
 */
describe('waking the outbox relays of this process', () => {
  let db: DataSource;
  let schema: string;
  let otherSchema: string;
  let databaseUrl: string;
  let wakes: number;
  let otherWakes: number;
  const undo: Array<() => void> = [];

  beforeAll(async () => {
    databaseUrl = (await resolveInfra()).DATABASE_URL;
    schema = uniqueName('t_wake');
    otherSchema = uniqueName('t_wake_other');
    db = createDataSource({ url: databaseUrl, schema, entities: [], migrations: [CreateOutboxAndInbox1763800000000] });
    await initializeDataSource(db, schema);
    await db.query(`CREATE TABLE counters (id text PRIMARY KEY, n int NOT NULL)`);
    await db.query(`INSERT INTO counters (id, n) VALUES ('one', 0)`);
    undo.push(onOutboxCommitted(schema, () => (wakes += 1)), onOutboxCommitted(otherSchema, () => (otherWakes += 1)));
  });

  beforeEach(() => {
    wakes = 0;
    otherWakes = 0;
  });

  afterAll(async () => {
    for (const fn of undo) fn();
    await db.destroy();
    await dropSchemas(databaseUrl, [schema]);
  });

  const writer = () => new EventWriter('identity', schema);
  const counted = (id: string) => ({ text: `UPDATE counters SET n = n + 1 WHERE id = $1 RETURNING id, n`, params: [id] });
  const outboxRows = async () => Number((await db.query(`SELECT count(*)::int AS n FROM outbox`))[0].n);

  it('wakes once per committed transaction that wrote events, after its commit, and only its own schema', async () => {
    const before = await outboxRows();
    let wokenBeforeCommit = -1;
    await db.transaction(async (tx) => {
      await writer().publishAll(tx, [registered('a'), registered('b')]);
      await writer().publishAllWith(tx, counted('one'), [registered('c')]);
      wokenBeforeCommit = wakes;
    });
    expect({ wokenBeforeCommit, wakes, otherWakes }).toEqual({ wokenBeforeCommit: 0, wakes: 1, otherWakes: 0 });
    expect(await outboxRows()).toBe(before + 3);
  });

  it('does not wake for a transaction rolled back, nor for a change that wrote no event', async () => {
    const before = await outboxRows();
    await expect(
      db.transaction(async (tx) => {
        await writer().publishAll(tx, [registered('d')]);
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    await db.transaction((tx) => writer().publishAllWith(tx, counted('no-such-counter'), [registered('e')]));
    await db.transaction(async (tx) => tx.query(`UPDATE counters SET n = n + 1 WHERE id = 'one'`));
    expect(wakes).toBe(0);
    expect(await outboxRows()).toBe(before);
  });

  it('waits for the outer commit when events are written inside a nested transaction', async () => {
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.startTransaction();
      await writer().publishAll(runner.manager, [registered('f')]);
      await runner.commitTransaction();
      expect(wakes).toBe(0);
      await runner.commitTransaction();
      expect(wakes).toBe(1);
    } finally {
      await runner.release();
    }
  });

  it('wakes at once for a change committed on its own with its events, and not when it changed nothing', async () => {
    expect(await writer().commitAllWith(db.manager, counted('no-such-counter'), [registered('g')])).toEqual([]);
    expect(wakes).toBe(0);
    expect(await writer().commitAllWith(db.manager, counted('one'), [registered('h')])).toHaveLength(1);
    expect(wakes).toBe(1);
  });
});
