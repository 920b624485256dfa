import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow } from '@market/contracts';
import { eventually, publishEvent, internalClientAs, startStack, type Stack } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { breakdown, inboxHas, newUser, orderData, recharge } from './support';

const WALLET_DIR = path.resolve(__dirname, '..');

/** Runs `npm run wallet:verify`'s program from its sources against one schema. */
function runVerify(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), 'src/verify-main.ts'],
      { cwd: WALLET_DIR, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

describe('wallet:verify', () => {
  let stack: Stack;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet'] });
    env = { DATABASE_URL: String(stack.env.DATABASE_URL), DB_SCHEMA: stack.services.wallet!.ctx.schema };
    // a little of everything: recharges, a held escrow, a settled one, a cancelled-before-charge order
    const renter = newUser();
    const owner = newUser();
    await recharge(stack, renter, 30_000);
    const held = uuidv7();
    const done = uuidv7();
    for (const id of [held, done]) {
      await internalClientAs(stack, 'orders').call(chargeOrderEscrow, { params: { id }, body: { renter_id: renter.id, owner_id: owner.id, amount: 10_000 } });
    }
    const order = { id: done, renter, owner, rent: 6_000, deposit: 4_000 };
    const completed = await publishEvent(stack, 'order.completed', { ...orderData(order, 'completed'), ...breakdown(10_000, 5_000, 500) });
    const voided = await publishEvent(stack, 'order.cancelled', orderData({ ...order, id: uuidv7() }, 'cancelled'));
    await eventually(async () => (await inboxHas(stack, completed.id)) && (await inboxHas(stack, voided.id)), Boolean);
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;

  /** Applies a corruption, expects verify to name the broken rule, then undoes it. */
  async function expectCaught(corrupt: string, undo: string, check: RegExp) {
    await db().query(corrupt);
    try {
      const differences = await findLedgerDifferences(db());
      expect(differences.map((d) => d.check)).toEqual(expect.arrayContaining([expect.stringMatching(check)]));
    } finally {
      await db().query(undo);
    }
    expect(await findLedgerDifferences(db())).toEqual([]);
  }

  it('exits 0 on a sound ledger and 1, naming the rule, once a balance is corrupted', async () => {
    const clean = await runVerify(env);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ differences: [] });

    const [{ key: revenue }] = await db().query(`SELECT key FROM accounts WHERE kind = 'platform_revenue' LIMIT 1`);
    await db().query(`UPDATE accounts SET balance = balance + 1 WHERE key = $1`, [revenue]);
    try {
      const broken = await runVerify(env);
      expect(broken.code).toBe(1);
      const checks = JSON.parse(broken.stdout).differences.map((d: { check: string }) => d.check);
      expect(checks).toEqual(
        expect.arrayContaining(['the balances of all accounts sum to zero', 'every account balance is the sum of its entries']),
      );
    } finally {
      await db().query(`UPDATE accounts SET balance = balance - 1 WHERE key = $1`, [revenue]);
    }
    expect(await findLedgerDifferences(db())).toEqual([]);
    expect((await runVerify({ ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' })).code).toBe(2);
  }, 60_000);

  it('catches an entry that disagrees with its transfer or its running balance', async () => {
    await expectCaught(
      `UPDATE entries SET balance_after = balance_after + 5 WHERE seq = (SELECT max(seq) FROM entries)`,
      `UPDATE entries SET balance_after = balance_after - 5 WHERE seq = (SELECT max(seq) FROM entries)`,
      /running total/,
    );
    await expectCaught(
      `UPDATE transfers SET amount = amount + 1 WHERE id = (SELECT id FROM transfers ORDER BY id LIMIT 1)`,
      `UPDATE transfers SET amount = amount - 1 WHERE id = (SELECT id FROM transfers ORDER BY id LIMIT 1)`,
      /one debit of its source/,
    );
  });

  it('catches an escrow that disagrees with what the wallet knows of its order', async () => {
    await expectCaught(
      `UPDATE order_escrows SET status = 'settled', ended_at = now() WHERE status = 'held'`,
      `UPDATE order_escrows SET status = 'held', ended_at = NULL WHERE status = 'settled' AND end_event IS NULL`,
      /escrow still held holds exactly its charge/,
    );
    await expectCaught(
      `UPDATE order_escrows SET amount = amount + 1 WHERE status = 'settled'`,
      `UPDATE order_escrows SET amount = amount - 1 WHERE status = 'settled'`,
      /charged once/,
    );
  });

  it('catches a succeeded recharge without its credit', async () => {
    await expectCaught(
      `UPDATE payments SET amount = amount + 1 WHERE status = 'succeeded'`,
      `UPDATE payments SET amount = amount - 1 WHERE status = 'succeeded'`,
      /recharge credited its amount once/,
    );
  });

  it('catches an approved refund whose amount is not held, and a refunded one that never left through its provider', async () => {
    const refundId = uuidv7();
    const insert = (status: string) =>
      `INSERT INTO refunds (id, payment_id, user_id, provider, kind, amount, status, next_check_at, created_at${status === 'refunded' ? ', finished_at' : ''})
       SELECT '${refundId}', id, user_id, provider, 'user_request', 100, '${status}', now(), now()${status === 'refunded' ? ', now()' : ''} FROM payments WHERE status = 'succeeded' LIMIT 1`;
    const remove = `DELETE FROM refunds WHERE id = '${refundId}'`;
    await expectCaught(insert('approved'), remove, /a refund that is open \(approved, processing\) holds exactly its amount in its refund_hold account/);
    await expectCaught(insert('refunded'), remove, /a refunded one paid out once/);
  });

  it('checks every kind of hold account: money held for nothing the wallet has, and a hold kind the check does not know', async () => {
    await expectCaught(
      `INSERT INTO accounts (key, kind, owner_id, balance) VALUES ('withdrawal:0193a000-0000-7000-8000-00000000dead', 'withdrawal_hold', NULL, 5)`,
      `DELETE FROM accounts WHERE key = 'withdrawal:0193a000-0000-7000-8000-00000000dead'`,
      /withdrawal_hold account only for a withdrawal the wallet has/,
    );
    // a kind of hold added to the ledger (a deposit held for a dispute, say) without its entry in the check's list
    const client = new Client({ connectionString: env.DATABASE_URL, options: `-c search_path=${env.DB_SCHEMA}` });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check`);
      await client.query(`INSERT INTO accounts (key, kind, owner_id, balance) VALUES ('dispute:0193a000-0000-7000-8000-00000000beef', 'dispute_hold', NULL, 0)`);
      const differences = await findLedgerDifferences({ query: async (sql, params) => (await client.query(sql, params)).rows });
      expect(differences).toEqual([{ check: 'every hold account is of a kind the ledger check knows', rows: [{ key: 'dispute:0193a000-0000-7000-8000-00000000beef', kind: 'dispute_hold', balance: '0' }] }]);
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
    expect(await findLedgerDifferences(db())).toEqual([]);
  });

  it('catches platform revenue that is not a platform fee, and fees that left their revenue accounts unaccounted', async () => {
    await expectCaught(
      `UPDATE transfers SET biz_type = 'settlement_income' WHERE biz_type = 'platform_fee'`,
      `UPDATE transfers SET biz_type = 'platform_fee' WHERE biz_type = 'settlement_income' AND to_account LIKE 'platform:revenue%'`,
      /credited only by platform fees/,
    );
    await expectCaught(
      `UPDATE transfers SET amount = amount + 7 WHERE biz_type = 'platform_fee'`,
      `UPDATE transfers SET amount = amount - 7 WHERE biz_type = 'platform_fee'`,
      /hold every platform fee taken/,
    );
  });
});
