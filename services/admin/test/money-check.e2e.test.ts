import { MoneyCheck } from '@market/contracts';
import { api, eventually, newAdmin, startStack, type Caller, type Stack } from '@market/testkit';

/** GET /api/admin/money-check: money:verify on demand, through the gateway, against the real orders and wallet. */
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

  it('needs ledger.read: a reviewer is refused, the signed-out too', async () => {
    const reviewer = await newAdmin(stack, ['reviewer']);
    const refused = await client.get('/api/admin/money-check', reviewer.token);
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await client.get('/api/admin/money-check')).status).toBe(401);
  });

  it('answers no mismatch while orders and wallet agree, and names a planted one with its payment and fen', async () => {
    const paymentId = await rechargedUser(5_000);
    const clean = await client.get('/api/admin/money-check', finance.token);
    expect(clean.status).toBe(200);
    expect(MoneyCheck.parse(clean.body)).toEqual({ checked_at: expect.any(String), mismatches: [] });

    // plant: the payment says 100 fen more than the wallet credited
    const wallet = stack.services.wallet!.ctx.db;
    await wallet.query(`UPDATE payments SET amount = amount + 100 WHERE id = $1`, [paymentId]);
    try {
      const found = await client.get('/api/admin/money-check', finance.token);
      expect(found.status).toBe(200);
      expect(found.body.mismatches).toEqual([{ check: 'every recharge is credited once, by its amount', id: paymentId, fen: 100, detail: expect.stringContaining('1 credit(s) of 5000') }]);
    } finally {
      await wallet.query(`UPDATE payments SET amount = amount - 100 WHERE id = $1`, [paymentId]);
    }
    expect((await client.get('/api/admin/money-check', finance.token)).body.mismatches).toEqual([]);
  });
});
