import { v7 as uuidv7 } from 'uuid';
import { api, eventually, newAdmin, startStack, type Caller, type Stack } from '@market/testkit';
import { balanceOf, callbackFor, notify, recharge, smsUser } from './support';

const REAL_NAME = '赵六';

/** `npm start` as a developer has it: NODE_ENV=development and no provider keys, so the sandbox takes payments and pays withdrawals. */
describe('the money loop in development with no provider keys', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let finance: Caller;

  beforeAll(async () => {
    stack = await startStack({ services: ['identity', 'admin', 'wallet'], serviceEnv: { wallet: { NODE_ENV: 'development' } } });
    finance = await newAdmin(stack, ['finance']);
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  const walletDb = () => stack.services.wallet!.ctx.db;

  it.each(['alipay', 'wechatpay'])('a withdrawal to %s is paid by the sandbox once the back office approves it', async (channel) => {
    const user = await smsUser(stack, { realName: REAL_NAME });
    await recharge(stack, user, 5_000);
    const asked = await client.post('/api/wallet/withdrawals', { amount: 3_000, channel, payee_account: 'dev-payee@example.com', payee_name: REAL_NAME }, user.token);
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ status: 'pending_review', payee_confirmation: null });
    const approved = await client.post(`/api/admin/withdrawals/${asked.body.id}/approve`, {}, finance.token);
    expect(approved.body).toMatchObject({ status: 'paid', paid_at: expect.any(String) });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 2_000 });
    const [payout] = await walletDb().query(`SELECT biz_type, amount::int AS amount FROM transfers WHERE withdrawal_id = $1 AND biz_type = 'withdrawal_payout'`, [asked.body.id]);
    expect(payout).toEqual({ biz_type: 'withdrawal_payout', amount: 3_000 });
  });

  it('the paygate callback settles only the sandbox’s own payments: an Alipay payment id is refused and nothing changes', async () => {
    const user = await smsUser(stack);
    const id = uuidv7();
    // a recharge Alipay is handling (as when both alipay and the sandbox are enabled)
    await walletDb().query(
      `INSERT INTO payments (id, user_id, amount, channel, provider, status, pay_url, qr_code, expires_at, created_at)
       VALUES ($1, $2, 5000, 'alipay', 'alipay', 'pending', 'https://qr.alipay.com/bax1', 'https://qr.alipay.com/bax1', now() + interval '15 minutes', now())`,
      [id, user.id],
    );
    const refused = await notify(stack, callbackFor({ id, amount: 5_000 }));
    expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
    const [payment] = await walletDb().query(`SELECT status FROM payments WHERE id = $1`, [id]);
    expect(payment.status).toBe('pending');
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    // a sandbox payment is settled as before
    const sandboxPaid = await recharge(stack, user, 1_000);
    await eventually(() => balanceOf(stack, user), (b) => b.available === 1_000);
    expect(sandboxPaid.amount).toBe(1_000);
  });
});
