import { createSign, generateKeyPairSync } from 'node:crypto';
import { createLogger } from '@market/shared/logging';
import { api, eventually, outboxEvents, startAlipaySimulator, type AlipaySimulator, type Stack } from '@market/testkit';
import { AlipayClient, AlipayGateway } from '../src/adapters/alipay-gateway';
import { ProviderFailed } from '../src/domain/errors';
import { ALIPAY_NOTIFY_URL, alipayEnv, balanceOf, ledgerSum, newUser, paymentAudits, QUICK_PAYMENT_SCANS, startProviderStack, startRecharge, type Caller } from './support';

describe('recharge through Alipay (alipay-sdk against the local Alipay simulator)', () => {
  let sim: AlipaySimulator, stack: Stack, client: ReturnType<typeof api>;
  beforeAll(async () => {
    ({ sim, stack, client } = await startProviderStack(startAlipaySimulator(), ['wallet'], (s) => ({ ...alipayEnv(s), ...QUICK_PAYMENT_SCANS })));
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;

  const start = (user: Caller, amount: number, channel?: string) => startRecharge(stack, user, amount, channel);
  const payment = async (user: Caller, id: string) => (await client.post(`/api/wallet/recharge/pay/${id}/query`, {}, user.token)).body;
  const auditsOf = (paymentId: string) => paymentAudits(stack, paymentId);

  it('opens a QR payment at Alipay, credits once on its signed notification and answers exactly success', async () => {
    const user = newUser();
    const started = await start(user, 12_345);
    expect(started).toMatchObject({ status: 'pending', provider: 'alipay', channel: 'alipay', amount: 12_345 });
    expect(started.qr_code).toMatch(/^https:\/\/qr\.alipay\.com\//);
    expect(started.pay_url).toBe(started.qr_code);
    expect(sim.trades.get(started.id)).toMatchObject({ total_amount: '123.45', notify_url: ALIPAY_NOTIFY_URL, status: 'WAIT_BUYER_PAY' });

    expect(await sim.pay(started.id)).toEqual({ status: 200, text: 'success' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 12_345 });
    expect(await payment(user, started.id)).toMatchObject({ status: 'succeeded', paid_at: expect.any(String) });
    const succeeded = (await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.payment_id === started.id);
    expect(succeeded.map((e) => e.data)).toEqual([expect.objectContaining({ amount: 12_345, gateway_txn_id: sim.trades.get(started.id)!.trade_no })]);
  });

  it('credits nothing more for replayed notifications, even 30 at once', async () => {
    const user = newUser();
    const started = await start(user, 800, 'alipay');
    await sim.pay(started.id, { deliver: false });
    const fields = sim.notificationFor(started.id);
    const answers = await Promise.all(Array.from({ length: 30 }, () => sim.sendNotification(ALIPAY_NOTIFY_URL, fields)));
    expect(answers.every((a) => a.status === 200 && a.text === 'success')).toBe(true);
    expect(await sim.sendNotification(ALIPAY_NOTIFY_URL, sim.notificationFor(started.id))).toEqual({ status: 200, text: 'success' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 800 });
    const lines = (await client.get('/api/wallet/ledger?biz_type=recharge', user.token)).body.items;
    expect(lines).toHaveLength(1);
    expect(await ledgerSum(stack)).toBe(0);
  });

  it('refuses a forged, altered, other-app or other-amount notification with fail, credits nothing and audits each', async () => {
    const user = newUser();
    const started = await start(user, 5_000);
    // Alipay itself still has the trade unpaid, so only a notification could credit it here
    const paid = { trade_status: 'TRADE_SUCCESS' };
    const genuine = sim.notificationFor(started.id, paid);
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const content = Object.keys(genuine)
      .filter((k) => k !== 'sign' && k !== 'sign_type')
      .sort()
      .map((k) => `${k}=${genuine[k]}`)
      .join('&');
    const forged = { ...genuine, sign: createSign('RSA-SHA256').update(content).sign(forger.privateKey, 'base64') };
    const altered = { ...genuine, total_amount: '50000.00' };
    const unsigned: Record<string, string> = { ...genuine };
    delete unsigned.sign;

    for (const fields of [forged, altered, unsigned]) {
      expect(await sim.sendNotification(ALIPAY_NOTIFY_URL, fields)).toEqual({ status: 400, text: 'fail' });
    }
    expect(await sim.sendNotification(ALIPAY_NOTIFY_URL, sim.notificationFor(started.id, { ...paid, app_id: '2021000000000001' }))).toEqual({ status: 400, text: 'fail' });
    expect(await sim.sendNotification(ALIPAY_NOTIFY_URL, sim.notificationFor(started.id, { ...paid, total_amount: '0.50' }))).toEqual({ status: 400, text: 'fail' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    expect((await db().query(`SELECT status FROM payments WHERE id = $1`, [started.id]))[0].status).toBe('pending');

    const audits = await auditsOf(started.id);
    expect(audits.map((a) => [a.action, a.detail.reason ?? a.detail.reported, a.result])).toEqual([
      ['payment.notification_refused', 'signature', 'failure'],
      ['payment.notification_refused', 'signature', 'failure'],
      ['payment.notification_refused', 'signature', 'failure'],
      ['payment.notification_refused', 'app_id', 'failure'],
      ['payment.amount_mismatch', 50, 'failure'],
    ]);
    // the genuine one still credits
    expect(await sim.sendNotification(ALIPAY_NOTIFY_URL, genuine)).toEqual({ status: 200, text: 'success' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 5_000 });
  });

  it('recovers a payment whose notification was lost by querying Alipay (alipay.trade.query) on its own', async () => {
    const user = newUser();
    const started = await start(user, 2_500);
    await sim.pay(started.id, { deliver: false });
    const credited = await eventually(
      () => balanceOf(stack, user),
      (b) => b.available === 2_500,
    );
    expect(credited.available).toBe(2_500);
    expect((await db().query(`SELECT status FROM payments WHERE id = $1`, [started.id]))[0].status).toBe('succeeded');
  });

  it('closes an abandoned payment at Alipay (alipay.trade.close) when it expires', async () => {
    const user = newUser();
    const started = await start(user, 1_000);
    await db().query(`UPDATE payments SET expires_at = now() - interval '1 second' WHERE id = $1`, [started.id]);
    await eventually(
      () => payment(user, started.id),
      (p) => p.status === 'expired',
    );
    expect(sim.trades.get(started.id)!.status).toBe('TRADE_CLOSED');
    await expect(sim.pay(started.id)).rejects.toThrow(/TRADE_CLOSED/);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    const expired = (await outboxEvents(stack, 'wallet', 'payment.expired')).filter((e) => e.data.payment_id === started.id);
    expect(expired).toHaveLength(1);
  });

  it('credits a success Alipay reports after the payment was given up, with an audit entry (issue 19 item 6)', async () => {
    const user = newUser();
    const started = await start(user, 3_300);
    // we gave up on it (as when a close raced the payer), while the payer's money reached Alipay
    await db().query(`UPDATE payments SET status = 'expired', finished_at = now() WHERE id = $1`, [started.id]);
    expect(await sim.pay(started.id)).toEqual({ status: 200, text: 'success' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 3_300 });
    expect(await payment(user, started.id)).toMatchObject({ status: 'succeeded' });
    expect((await auditsOf(started.id)).map((a) => [a.action, a.detail.was, a.detail.source])).toEqual([
      ['payment.late_success_credited', 'expired', 'alipay_notification'],
    ]);
    expect(await sim.sendNotification(ALIPAY_NOTIFY_URL, sim.notificationFor(started.id))).toEqual({ status: 200, text: 'success' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 3_300 });
  });

  it('is refused by Alipay when the app signs with another key: the gateway fails as a bad answer (502) and nothing is stored', async () => {
    const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const log = createLogger('wallet-test', 'silent');
    const gateway = new AlipayGateway(
      new AlipayClient({ appId: sim.appId, privateKey: wrongKey, verification: { mode: 'public_key', alipayPublicKey: sim.alipayPublicKey }, gateway: sim.gatewayUrl, notifyUrl: ALIPAY_NOTIFY_URL, timeoutMs: 5_000 }, log),
    );
    const before = sim.refusedRequests.length;
    const refused = gateway.createPayment({ paymentId: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', amount: 100, expiresAt: new Date(Date.now() + 60_000) });
    await expect(refused).rejects.toThrow(ProviderFailed);
    await expect(refused).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'bad_answer', message: 'Alipay could not open the payment; try again shortly' });
    expect(sim.refusedRequests.slice(before)).toEqual(['alipay.trade.precreate']);
    // and an answer not signed by Alipay's key is not believed either
    const otherAlipay = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const distrustful = new AlipayGateway(
      new AlipayClient({ appId: sim.appId, privateKey: sim.appPrivateKey, verification: { mode: 'public_key', alipayPublicKey: otherAlipay }, gateway: sim.gatewayUrl, notifyUrl: ALIPAY_NOTIFY_URL, timeoutMs: 5_000 }, log),
    );
    await expect(distrustful.queryPayment('0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'bad_answer' });
  });

  it('refuses a channel that is not enabled', async () => {
    const res = await client.post('/api/wallet/recharge/pay', { amount: 100, channel: 'sandbox' }, newUser().token);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('CHANNEL_UNAVAILABLE');
  });
});
