import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attachFiles, readFile, uploadFile } from '@market/contracts';
import type { Identity, UserIdentity } from '@market/shared/auth';
import type { DomainEvent } from '@market/shared/events';
import { asUser, eventually, orderEventData, ORDER_SETTLEMENT, startComponent, type Component } from '@market/testkit';
import { v7 as uuidv7 } from 'uuid';
import { JPEG } from '../samples';

type OrderEnd = 'order.completed' | 'order.closed' | 'order.cancelled';

/**
 * ADR 0056: an order's end takes back the reads its grants gave, and a grant racing the end is
 * either written before it (and deleted by it) or not written at all. The races are real: the
 * attach call and the event's handling run at once in the service; a gate (a trigger waiting on an
 * advisory lock this test holds) only stops one of them at the point the other must meet it.
 */
describe('files: read grants end with the order', () => {
  let files: Component;
  let storageDir: string;

  const db = () => files.service.ctx.db;
  const internal = () => files.internalAs('orders');

  beforeAll(async () => {
    storageDir = mkdtempSync(path.join(tmpdir(), 'files-grants-'));
    files = await startComponent('files', { env: { FILES_STORAGE_DIR: storageDir } });
  });
  afterEach(() => files.verify());
  afterAll(async () => {
    await files?.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  async function uploaded(owner: Identity): Promise<string> {
    const body = new FormData();
    body.append('scene', 'handoff');
    body.append('file', new Blob([JPEG], { type: 'image/jpeg' }), 'evidence.jpg');
    const res = await files.call(uploadFile, { as: owner, body });
    expect(res.status).toBe(201);
    return res.body.key;
  }

  const grant = (key: string, orderId: string, reader: UserIdentity) =>
    internal().call(attachFiles, { body: { keys: [key], biz_type: 'order', biz_id: orderId, reader_ids: [reader.sub] } });
  const readStatus = async (key: string, as: Identity) => (await files.call(readFile, { query: { key }, as })).status;
  const grantsOf = (orderId: string) => db().query(`SELECT key, reader_id FROM attachments WHERE biz_type = 'order' AND biz_id = $1`, [orderId]);

  function end(type: OrderEnd, orderId: string): Promise<DomainEvent<OrderEnd>> {
    if (type === 'order.cancelled') return files.publish(type, orderEventData('cancelled', { order_id: orderId }));
    return files.publish(type, { ...orderEventData(type === 'order.completed' ? 'completed' : 'closed', { order_id: orderId }), ...ORDER_SETTLEMENT });
  }

  /** waits until the service has handled the event (its inbox holds the id) */
  const handled = (event: { id: string }) =>
    eventually(
      () => db().query(`SELECT 1 FROM inbox WHERE event_id = $1`, [event.id]),
      (rows: unknown[]) => rows.length === 1,
    );

  /** waits until `count` of the service's transactions wait for a lock */
  const lockWaiters = (count: number) =>
    eventually(
      () => db().query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = current_setting('application_name') AND wait_event_type = 'Lock'`),
      (rows: Array<{ n: number }>) => rows[0]!.n === count,
    );

  /**
   * Runs `work` while every insert into `table` for the order waits at a gate, and opens the gate
   * when `work` is done: the insert's transaction is stopped there, holding what it took before.
   */
  async function gated(table: 'attachments' | 'ended_grants', orderId: string, work: () => Promise<void>): Promise<void> {
    const gate = randomInt(1, 2 ** 31 - 1);
    await db().query(`CREATE FUNCTION wait_at_gate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock(56, ${gate}); RETURN NEW; END $$`);
    await db().query(`CREATE TRIGGER wait_at_gate BEFORE INSERT ON ${table} FOR EACH ROW WHEN (NEW.biz_id = '${orderId}') EXECUTE FUNCTION wait_at_gate()`);
    try {
      await db().transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(56, $1)', [gate]);
        await work();
      });
    } finally {
      await db().query(`DROP TRIGGER wait_at_gate ON ${table}`);
      await db().query('DROP FUNCTION wait_at_gate()');
    }
  }

  it.each(['order.completed', 'order.closed', 'order.cancelled'] as const)(
    '%s takes back what the order shared and nothing another order shared; the uploader still reads, and a later grant is refused',
    async (type) => {
      const [owner, party, partyElsewhere] = [asUser(), asUser(), asUser()];
      const key = await uploaded(owner);
      const [orderId, otherOrderId] = [uuidv7(), uuidv7()];
      expect(await grant(key, orderId, party)).toEqual({ attached: 1 });
      expect(await grant(key, otherOrderId, partyElsewhere)).toEqual({ attached: 1 });
      expect(await readStatus(key, party)).toBe(200);

      await handled(await end(type, orderId));
      expect(await grantsOf(orderId)).toEqual([]);
      expect(await db().query(`SELECT 1 FROM ended_grants WHERE biz_type = 'order' AND biz_id = $1`, [orderId])).toHaveLength(1);
      expect(await readStatus(key, party)).toBe(404);
      expect(await readStatus(key, partyElsewhere)).toBe(200);
      expect(await readStatus(key, owner)).toBe(200);

      expect(await grant(key, orderId, party)).toEqual({ attached: 0 });
      expect(await grantsOf(orderId)).toEqual([]);
      expect(await readStatus(key, party)).toBe(404);
    },
  );

  it('a grant that holds the order when its end arrives is written first and deleted by the end, though it commits while the end waits', async () => {
    const [owner, party] = [asUser(), asUser()];
    const key = await uploaded(owner);
    const orderId = uuidv7();
    let attaching!: ReturnType<typeof grant>;
    let ended!: DomainEvent<OrderEnd>;
    await gated('attachments', orderId, async () => {
      // the grant has taken the order and found it running; its row waits at the gate
      attaching = grant(key, orderId, party);
      await lockWaiters(1);
      // the end is taken meanwhile and waits for the grant
      ended = await end('order.completed', orderId);
      await lockWaiters(2);
    });
    expect(await attaching).toEqual({ attached: 1 });
    await handled(ended);
    expect(await grantsOf(orderId)).toEqual([]);
    expect(await readStatus(key, party)).toBe(404);
    expect(await readStatus(key, owner)).toBe(200);
  });

  it('a grant that arrives while the end holds the order waits for it and writes nothing', async () => {
    const [owner, party] = [asUser(), asUser()];
    const [before, racing] = [await uploaded(owner), await uploaded(owner)];
    const orderId = uuidv7();
    expect(await grant(before, orderId, party)).toEqual({ attached: 1 });
    let attaching!: ReturnType<typeof grant>;
    let ended!: DomainEvent<OrderEnd>;
    await gated('ended_grants', orderId, async () => {
      // the end has taken the order; its record waits at the gate
      ended = await end('order.cancelled', orderId);
      await lockWaiters(1);
      attaching = grant(racing, orderId, party);
      await lockWaiters(2);
    });
    expect(await attaching).toEqual({ attached: 0 });
    await handled(ended);
    expect(await grantsOf(orderId)).toEqual([]);
    expect(await readStatus(before, party)).toBe(404);
    expect(await readStatus(racing, party)).toBe(404);
  });
});
