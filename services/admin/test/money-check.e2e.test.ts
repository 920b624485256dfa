import { execFile } from 'node:child_process';
import path from 'node:path';
import { MoneyCheck } from '@market/contracts';
import { api, eventually, newAdmin, startStack, type Caller, type Stack } from '@market/testkit';

// the wallet's own program, as an operator runs it (the test reads the wallet's sources, not another service's code)
const WALLET_VERIFY = path.resolve(__dirname, '../../wallet/src/verify-main.ts');

/** /api/admin/money-check: money:verify through the gateway, against the real orders and wallet, stored and on demand. */
describe('the money check on demand', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let finance: Caller;

  beforeAll(async () => {
    stack = await startStack({ services: ['identity', 'admin', 'orders', 'wallet'] });
    client = api(stack.url);
    finance = await newAdmin(stack, ['finance']);
  });
  afterAll(() => stack?.stop());

  async function rechargedUser(amount: number) {
    const phone = `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const sent = await client.post('/api/auth/sms/send', { phone });
    const login = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
    const token = login.body.access_token as string;
    const payment = await client.post('/api/wallet/recharge/pay', { amount, channel: 'sandbox' }, token);
    expect(payment.status).toBe(201);
    expect((await client.post(`/api/payments/sandbox/${payment.body.id}/complete`, { status: 'succeeded' }, token)).status).toBe(200);
    await eventually(
      async () => (await client.get('/api/wallet/balance', token)).body.available,
      (available) => available === amount,
    );
    return payment.body.id as string;
  }

  it('needs ledger.read to read or to run it: a reviewer is refused, the signed-out too', async () => {
    const reviewer = await newAdmin(stack, ['reviewer']);
    for (const ask of [() => client.get('/api/admin/money-check', reviewer.token), () => client.post('/api/admin/money-check', {}, reviewer.token)]) {
      const refused = await ask();
      expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    }
    expect((await client.get('/api/admin/money-check')).status).toBe(401);
    expect((await client.post('/api/admin/money-check', {})).status).toBe(401);
  });

  it('answers the latest result to GET while it is under a minute old; POST runs the check now and names a planted mismatch', async () => {
    const paymentId = await rechargedUser(5_000);
    const clean = await client.post('/api/admin/money-check', {}, finance.token);
    expect(clean.status).toBe(200);
    expect(MoneyCheck.parse(clean.body)).toEqual({ checked_at: expect.any(String), mismatches: [], ledger: { checks: expect.any(Number), differences: [] } });
    // reloading reads the stored result: the same run, not a new reconciliation
    const reads = await Promise.all([1, 2, 3].map(() => client.get('/api/admin/money-check', finance.token)));
    expect(reads.map((r) => [r.status, r.body.checked_at])).toEqual(reads.map(() => [200, clean.body.checked_at]));

    // plant: the payment says 100 fen more than the wallet credited
    const wallet = stack.services.wallet!.ctx.db;
    await wallet.query(`UPDATE payments SET amount = amount + 100 WHERE id = $1`, [paymentId]);
    try {
      expect((await client.get('/api/admin/money-check', finance.token)).body).toEqual(clean.body);
      const found = await client.post('/api/admin/money-check', {}, finance.token);
      expect(found.status).toBe(200);
      expect(found.body.mismatches).toEqual([{ check: 'every recharge is credited once, by its amount', id: paymentId, fen: 100, detail: expect.stringContaining('1 credit(s) of 5000') }]);
      // the ledger's own rule sees it too
      expect(found.body.ledger.differences.map((d: { check: string }) => d.check)).toEqual(['each succeeded recharge credited its amount once; no other payment credited anything']);
      expect((await client.get('/api/admin/money-check', finance.token)).body).toEqual(found.body);
    } finally {
      await wallet.query(`UPDATE payments SET amount = amount - 100 WHERE id = $1`, [paymentId]);
    }
    expect((await client.post('/api/admin/money-check', {}, finance.token)).body.mismatches).toEqual([]);
  });

  it('includes the wallet’s ledger checks, reporting what npm run wallet:verify reports', async () => {
    const wallet = stack.services.wallet!.ctx.db;
    const [{ key }] = await wallet.query(`SELECT key FROM accounts WHERE kind = 'user_available' LIMIT 1`);
    // plant: a balance one fen off its entries, and off the ledger's zero sum; orders and wallet still agree
    await wallet.query(`UPDATE accounts SET balance = balance + 1 WHERE key = $1`, [key]);
    try {
      const found = await client.post('/api/admin/money-check', {}, finance.token);
      expect(found.status).toBe(200);
      expect(found.body.mismatches).toEqual([]);
      expect(found.body.ledger.differences.map((d: { check: string }) => d.check)).toEqual([
        'the balances of all accounts sum to zero',
        'every account balance is the sum of its entries',
      ]);
      expect(found.body.ledger.differences[1].rows).toEqual([expect.objectContaining({ key })]);
      const script = await walletVerify();
      expect(script.code).toBe(1);
      const { schema: _schema, ...printed } = JSON.parse(script.stdout);
      expect(printed).toEqual(found.body.ledger);
    } finally {
      await wallet.query(`UPDATE accounts SET balance = balance - 1 WHERE key = $1`, [key]);
    }
    expect((await client.post('/api/admin/money-check', {}, finance.token)).body.ledger.differences).toEqual([]);
  });

  /** `npm run wallet:verify`'s program, from its sources, against the stack's wallet schema. */
  function walletVerify(): Promise<{ code: number; stdout: string }> {
    const env = { PATH: process.env.PATH, DATABASE_URL: String(stack.env.DATABASE_URL), DB_SCHEMA: stack.services.wallet!.ctx.schema };
    return new Promise((resolve) => {
      execFile(process.execPath, [require.resolve('tsx/cli'), WALLET_VERIFY], { cwd: path.resolve(WALLET_VERIFY, '../..'), env, timeout: 60_000 }, (err, stdout) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
  }
});
