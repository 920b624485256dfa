import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, eventProducers, orderEscrow } from '@market/contracts';
import { buildEvent } from '@market/shared/events';
import { eventually, internalClientAs, publishRawAs, startStack, type Stack } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { breakdown, newUser, orderData, recharge, type Caller } from './support';

const SETTLEMENTS = 200;
const PAYS = 50;
const STALL_MS = 6_000;

/**
 * Issue 19 item 2: a burst of settlements must not starve the wallet's pool, so a pay (the
 * wallet's charge of an order's escrow) running at the same time still answers 2xx. One
 * settlement stalls holding the platform revenue account it credits (a slow transaction, as under
 * load), longer than a pay may wait for a connection (DB_CONNECT_TIMEOUT_MS, 5 s).
 */
describe('a settlement burst beside concurrent pays', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet'] });
  });
  afterAll(() => stack?.stop());

  function charge(order: { id: string; renter: Caller; owner: Caller; rent: number; deposit: number }) {
    return internalClientAs(stack, 'orders').call(chargeOrderEscrow, {
      params: { id: order.id },
      body: { renter_id: order.renter.id, owner_id: order.owner.id, amount: order.rent + order.deposit },
    });
  }

  async function publishCompletions(orders: Array<{ id: string; renter: Caller; owner: Caller; rent: number; deposit: number }>) {
    const producer = eventProducers['order.completed'][0]!;
    const events = orders.map((order) => buildEvent('order.completed', { ...orderData(order, 'completed'), ...breakdown(1_000, 800, 200) }, producer, null));
    await publishRawAs(
      stack.env,
      producer,
      events.map((event) => ({ routingKey: event.type, content: Buffer.from(JSON.stringify(event)), options: { messageId: event.id, type: event.type } })),
    );
  }

  const held = async () => {
    const [row] = await stack.services.wallet!.ctx.db.query(`SELECT count(*)::int AS n FROM order_escrows WHERE status = 'held'`);
    return row.n as number;
  };

  it(`settles ${SETTLEMENTS} orders while ${PAYS} pays all answer 2xx`, async () => {
    const renter = newUser();
    await recharge(stack, renter, (SETTLEMENTS + 1) * 1_000);
    const warmUp = { id: uuidv7(), renter, owner: newUser(), rent: 800, deposit: 200 };
    await charge(warmUp);
    await publishCompletions([warmUp]);
    await eventually(held, (n) => n === 0);
    const [{ to_account: stalledAccount }] = await stack.services.wallet!.ctx.db.query(
      `SELECT to_account FROM transfers WHERE order_id = $1 AND biz_type = 'platform_fee'`,
      [warmUp.id],
    );

    const ending = Array.from({ length: SETTLEMENTS }, () => ({ id: uuidv7(), renter, owner: newUser(), rent: 800, deposit: 200 }));
    for (const order of ending) await charge(order);
    const paying = await Promise.all(
      Array.from({ length: PAYS }, async () => {
        const order = { id: uuidv7(), renter: newUser(), owner: newUser(), rent: 800, deposit: 200 };
        await recharge(stack, order.renter, 1_000);
        return order;
      }),
    );

    const staller = new Client({ connectionString: String(stack.env.DATABASE_URL) });
    await staller.connect();
    await staller.query('BEGIN');
    await staller.query(`SELECT 1 FROM "${stack.services.wallet!.ctx.schema}".accounts WHERE key = $1 FOR UPDATE`, [stalledAccount]);
    // Counted on the staller's own connection: the wallet's pool is what may be exhausted.
    const released = new Promise<number>((resolve, reject) =>
      setTimeout(() => {
        staller
          .query(`SELECT count(*)::int AS n FROM "${stack.services.wallet!.ctx.schema}".order_escrows WHERE status = 'held'`)
          .then(async ({ rows }) => {
            await staller.query('ROLLBACK');
            await staller.end();
            resolve(rows[0].n as number);
          }, reject);
      }, STALL_MS),
    );

    await publishCompletions(ending);
    const started = Date.now();
    const outcomes = await Promise.all(
      paying.map((order) =>
        charge(order).then(
          () => 'ok',
          (err: { status?: number; code?: string }) => `${err.status ?? 'error'} ${err.code ?? ''}`.trim(),
        ),
      ),
    );
    const failed = outcomes.filter((o) => o !== 'ok');
    const heldAtRelease = await released;
    await eventually(held, (n) => n === PAYS - failed.length, 120_000);
    process.stdout.write(
      `settlement burst: ${failed.length} of ${PAYS} pays failed (${[...new Set(failed)].join(', ') || 'none'}); ` +
        `${SETTLEMENTS + PAYS - failed.length - heldAtRelease} of ${SETTLEMENTS} settled while one revenue account stalled ${STALL_MS} ms; ` +
        `all settled ${Date.now() - started} ms after the burst started\n`,
    );
    expect(failed).toEqual([]);
    expect(await internalClientAs(stack, 'orders').call(orderEscrow, { params: { id: ending[0]!.id } })).toMatchObject({ held: 0 });
    expect(await findLedgerDifferences(stack.services.wallet!.ctx.db)).toEqual([]);
  }, 180_000);
});
