import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow } from '@market/contracts';
import { startService, type RunningService } from '@market/shared/service';
import { eventually, publishEvent, internalClientAs, startStack, type Stack } from '@market/testkit';
import { serviceEnv } from '@market/shared/testing';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { walletService } from '../src/service';
import { breakdown, newUser, orderData, recharge } from './support';

const ORDERS = 60;

describe('the settlement consumer killed mid-batch', () => {
  let stack: Stack;
  let child: ChildProcess | null = null;
  let restarted: RunningService | null = null;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet'] });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await restarted?.stop();
    await stack?.stop();
  });

  const db = () => stack.services.wallet!.ctx.db;
  const handled = async () => Number((await db().query(`SELECT count(*) AS n FROM inbox WHERE type = 'order.completed'`))[0].n);

  it('settles every order exactly once after a restart, and the ledger verifies clean', async () => {
    const renter = newUser();
    const owner = newUser();
    await recharge(stack, renter, ORDERS * 1_000);
    const orders = Array.from({ length: ORDERS }, () => ({ id: uuidv7(), renter, owner, rent: 800, deposit: 200 }));
    for (const order of orders) {
      await internalClientAs(stack, 'orders').call(chargeOrderEscrow, { params: { id: order.id }, body: { renter_id: renter.id, owner_id: owner.id, amount: 1_000 } });
    }
    // The stack's wallet stops consuming, so the batch waits in the queue for the process we kill.
    await stack.services.wallet!.consumer.stop();
    for (const order of orders) {
      await publishEvent(stack, 'order.completed', { ...orderData(order, 'completed'), ...breakdown(1_000, 800, 100) });
    }

    const schema = stack.services.wallet!.ctx.schema;
    const env = { ...serviceEnv(stack.env, 'wallet'), DB_SCHEMA: schema, PORT: '0', DB_POOL_SIZE: '2', INBOX_PREFETCH: '1', LOG_LEVEL: 'silent' };
    // One process (tsx as a loader, not its CLI, which runs the program in a child of its own): the kill must reach the consumer itself.
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: path.resolve(__dirname, '..'), env, stdio: 'ignore' });
    const atKill = await eventually(handled, (n) => n >= 5, 30_000);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
    const afterKill = await handled();
    expect(atKill).toBeLessThan(ORDERS);
    expect(afterKill).toBeLessThan(ORDERS);

    restarted = await startService(walletService, env);
    await eventually(handled, (n) => n === ORDERS, 30_000);

    expect(await findLedgerDifferences(db())).toEqual([]);
    const incomes = await db().query(
      `SELECT order_id, count(*)::int AS n, sum(amount)::int AS total FROM entries WHERE user_id = $1 AND biz_type = 'settlement_income' GROUP BY order_id`,
      [owner.id],
    );
    expect(incomes).toHaveLength(ORDERS);
    expect(incomes.every((row: { n: number; total: number }) => row.n === 1 && row.total === 855)).toBe(true);
    const held = await db().query(`SELECT count(*)::int AS n FROM order_escrows WHERE status = 'held'`);
    expect(held[0].n).toBe(0);
  }, 120_000);
});
