import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, LEDGER_CHAIN_CHECK } from '@market/contracts';
import { HeadsDigest } from '@market/shared/crypto';
import { eventually, publishEvent, internalClientAs, startStack, type Stack } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { logLedgerHeads } from '../src/application/log-ledger-heads';
import { entryHash } from '../src/persistence/ledger-chain';
import { ChainLedgerEntries1767200000001 } from '../src/persistence/migrations/1767200000001-chain-ledger-entries';
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
  let renterAccount: string;

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
    renterAccount = `user:${renter.id}`;
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

  describe('hash chains (ADR 0067)', () => {
    type Entry = { seq: string; id: string; prev_hash: string; hash: string } & Record<string, unknown>;
    const chainOf = async (account: string): Promise<Entry[]> =>
      db().query(`SELECT * FROM entries WHERE account_key = $1 ORDER BY seq`, [account]);
    const chainBreaks = async () => (await findLedgerDifferences(db())).find((d) => d.check === LEDGER_CHAIN_CHECK)?.rows;

    it('links every entry of an account to the one before, up to the head kept on the account row', async () => {
      const chain = await chainOf(renterAccount);
      expect(chain.length).toBeGreaterThanOrEqual(3);
      expect(chain[0]!.prev_hash).toBe('0'.repeat(64));
      chain.slice(1).forEach((entry, i) => expect(entry.prev_hash).toBe(chain[i]!.hash));
      const [account] = await db().query(`SELECT head_hash FROM accounts WHERE key = $1`, [renterAccount]);
      expect(account.head_hash).toBe(chain.at(-1)!.hash);
      expect(await chainBreaks()).toBeUndefined();
    });

    it('names the altered entry and its account, in wallet:verify too', async () => {
      const [, second] = await chainOf(renterAccount);
      await db().query(`UPDATE entries SET created_at = created_at + interval '1 second' WHERE id = $1`, [second!.id]);
      try {
        expect(await chainBreaks()).toEqual([{ chain: renterAccount, entry: second!.id, problem: 'altered' }]);
        const broken = await runVerify(env);
        expect(broken.code).toBe(1);
        expect(JSON.parse(broken.stdout).differences).toEqual([{ check: LEDGER_CHAIN_CHECK, rows: [{ chain: renterAccount, entry: second!.id, problem: 'altered' }] }]);
      } finally {
        await db().query(`UPDATE entries SET created_at = created_at - interval '1 second' WHERE id = $1`, [second!.id]);
      }
      expect(await findLedgerDifferences(db())).toEqual([]);
    }, 60_000);

    it('names the entry after a removed one, and the newest removed through the head', async () => {
      const chain = await chainOf(renterAccount);
      const remove = async (entry: Entry, expected: unknown) => {
        await db().query(`DELETE FROM entries WHERE id = $1`, [entry.id]);
        try {
          expect(await chainBreaks()).toEqual([expected]);
        } finally {
          const columns = Object.keys(entry);
          await db().query(`INSERT INTO entries (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(entry));
        }
      };
      await remove(chain[1]!, { chain: renterAccount, entry: chain[2]!.id, problem: 'removed_or_inserted' });
      await remove(chain.at(-1)!, { chain: renterAccount, entry: null, problem: 'head_mismatch' });
      expect(await findLedgerDifferences(db())).toEqual([]);
    });

    it('names an entry inserted, even one hashed as the writer would', async () => {
      const chain = await chainOf(renterAccount);
      const last = chain.at(-1)!;
      const forged = { ...last, id: uuidv7(), amount: '1', balance_after: String(Number(last.balance_after) + 1), created_at: new Date(), prev_hash: last.hash };
      const hash = entryHash(last.hash, forged as never);
      await db().query(
        `INSERT INTO entries (id, transfer_id, account_key, user_id, order_id, biz_type, amount, balance_after, created_at, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [forged.id, last.transfer_id, renterAccount, last.user_id, last.order_id, last.biz_type, 1, forged.balance_after, forged.created_at, last.hash, hash],
      );
      try {
        expect(await chainBreaks()).toEqual([{ chain: renterAccount, entry: forged.id, problem: 'removed_or_inserted' }]);
      } finally {
        await db().query(`DELETE FROM entries WHERE id = $1`, [forged.id]);
      }
      expect(await findLedgerDifferences(db())).toEqual([]);
    });

    it('the migration chains the entries already written, as the writer chains them', async () => {
      const before: Array<{ id: string; prev_hash: string; hash: string }> = await db().query(`SELECT id, prev_hash, hash FROM entries ORDER BY seq`);
      const heads = await db().query(`SELECT key, head_hash FROM accounts ORDER BY key`);
      const migration = new ChainLedgerEntries1767200000001();
      await db().transaction(async (tx) => {
        await migration.down(tx);
        await migration.up(tx);
      });
      expect(await db().query(`SELECT id, prev_hash, hash FROM entries ORDER BY seq`)).toEqual(before);
      expect(await db().query(`SELECT key, head_hash FROM accounts ORDER BY key`)).toEqual(heads);
    });

    it('logs one hash over every account’s head, which any change of a head changes', async () => {
      const logged: unknown[] = [];
      const log = { info: (fields: unknown) => logged.push(fields) } as never;
      const anchor = await logLedgerHeads({ db: db(), log });
      const expected = new HeadsDigest();
      const heads: Array<{ key: string; head_hash: string }> = await db().query(`SELECT key, head_hash FROM accounts ORDER BY key`);
      for (const h of heads) expected.add(h.key, h.head_hash);
      expect(anchor).toEqual({ accounts: heads.length, heads_hash: expected.value });
      expect(logged).toEqual([{ ledger_heads: anchor }]);
      await db().query(`UPDATE accounts SET head_hash = reverse(head_hash) WHERE key = $1`, [renterAccount]);
      try {
        expect((await logLedgerHeads({ db: db(), log })).heads_hash).not.toBe(anchor.heads_hash);
      } finally {
        await db().query(`UPDATE accounts SET head_hash = reverse(head_hash) WHERE key = $1`, [renterAccount]);
      }
    });

    it('keeps one line per account under parallel movements: no two entries share a previous hash', async () => {
      const renter = newUser();
      await recharge(stack, renter, 50_000);
      const orders = internalClientAs(stack, 'orders');
      const owner = newUser();
      const charges = await Promise.allSettled(
        Array.from({ length: 16 }, () =>
          orders.call(chargeOrderEscrow, { params: { id: uuidv7() }, body: { renter_id: renter.id, owner_id: owner.id, amount: 1_000 } }),
        ),
      );
      expect(charges.filter((c) => c.status === 'fulfilled')).toHaveLength(16);
      const chain = await chainOf(`user:${renter.id}`);
      expect(chain).toHaveLength(17);
      chain.slice(1).forEach((entry, i) => expect(entry.prev_hash).toBe(chain[i]!.hash));
      expect(await db().query(`SELECT account_key, prev_hash FROM entries GROUP BY account_key, prev_hash HAVING count(*) > 1`)).toEqual([]);
      expect(await findLedgerDifferences(db())).toEqual([]);
    });
  });
});
