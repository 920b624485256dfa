import { createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createLogger } from '@market/shared/logging';
import { api, eventually, outboxEvents, startWechatPaySimulator, type Stack, type WechatPaySimulator } from '@market/testkit';
import { WechatPayClient, wechatPayPlatformKeys } from '../src/adapters/wechatpay-client';
import { WechatPayGateway } from '../src/adapters/wechatpay-gateway';
import { WechatPayRefunds } from '../src/adapters/wechatpay-refunds';
import { ProviderFailed } from '../src/domain/errors';
import { balanceOf, ledgerSum, newUser, paymentAudits, QUICK_PAYMENT_SCANS, startProviderStack, startRecharge, WECHATPAY_NOTIFY_URL, WECHATPAY_REFUND_NOTIFY_URL, wechatPayClientFor, wechatPayEnv, type Caller } from './support';

const outTradeNo = (id: string) => id.replace(/-/g, '');

describe('recharge through WeChat Pay Native in public-key mode (against the local WeChat Pay simulator)', () => {
  let sim: WechatPaySimulator, stack: Stack, client: ReturnType<typeof api>;
  beforeAll(async () => {
    // the sandbox too: a recharge may choose either provider
    const env = (s: WechatPaySimulator) => ({ ...wechatPayEnv(s), PAYGATE_PROVIDER: 'wechatpay,sandbox', ...QUICK_PAYMENT_SCANS });
    ({ sim, stack, client } = await startProviderStack(startWechatPaySimulator(), ['wallet'], env));
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;
  const statusOf = async (id: string) => (await db().query(`SELECT status FROM payments WHERE id = $1`, [id]))[0].status as string;

  const start = (user: Caller, amount: number, channel?: string) => startRecharge(stack, user, amount, channel);
  const auditsOf = (paymentId: string) => paymentAudits(stack, paymentId);

  it('opens a Native payment, credits once on its signed, encrypted callback and answers 204', async () => {
    const user = newUser();
    const started = await start(user, 4_321, 'wechat');
    expect(started).toMatchObject({ provider: 'wechatpay', channel: 'wechat', status: 'pending' });
    expect(started.qr_code).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
    expect(sim.orders.get(outTradeNo(started.id))).toMatchObject({ total: 4_321, notify_url: WECHATPAY_NOTIFY_URL, trade_state: 'NOTPAY' });
    expect(await sim.pay(outTradeNo(started.id))).toEqual({ status: 204, text: '' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 4_321 });
    const succeeded = (await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.payment_id === started.id);
    expect(succeeded.map((e) => e.data.gateway_txn_id)).toEqual([sim.orders.get(outTradeNo(started.id))!.transaction_id]);
  });

  it('credits nothing more for replayed callbacks, even 20 at once', async () => {
    const user = newUser();
    const started = await start(user, 900, 'wechatpay');
    await sim.pay(outTradeNo(started.id), { deliver: false });
    const callback = sim.callbackFor(outTradeNo(started.id));
    const answers = await Promise.all(Array.from({ length: 20 }, () => sim.sendCallback(WECHATPAY_NOTIFY_URL, callback)));
    expect(answers.every((a) => a.status === 204)).toBe(true);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 900 });
    expect((await client.get('/api/wallet/ledger?biz_type=recharge', user.token)).body.items).toHaveLength(1);
    expect(await ledgerSum(stack)).toBe(0);
  });

  it('refuses a forged, altered, stale, other-merchant or other-amount callback, credits nothing and audits each', async () => {
    const user = newUser();
    const started = await start(user, 5_000, 'wechatpay');
    const no = outTradeNo(started.id);
    const paid = { trade_state: 'SUCCESS', success_time: new Date().toISOString() };
    const genuine = sim.callbackFor(no, paid);
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { 'Wechatpay-Timestamp': ts, 'Wechatpay-Nonce': nonce } = genuine.headers;
    const forged = {
      body: genuine.body,
      headers: { ...genuine.headers, 'Wechatpay-Signature': createSign('RSA-SHA256').update(`${ts}\n${nonce}\n${genuine.body}\n`).sign(forger.privateKey, 'base64') },
    };
    const altered = { headers: genuine.headers, body: genuine.body.replace('"TRANSACTION.SUCCESS"', '"TRANSACTION.SUCCESS" ') };
    const stale = { ...genuine, headers: { ...genuine.headers, 'Wechatpay-Timestamp': String(Number(ts) - 600) } };
    const unsigned = { body: genuine.body, headers: {} };
    for (const callback of [forged, altered, stale, unsigned]) {
      const res = await sim.sendCallback(WECHATPAY_NOTIFY_URL, callback);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({ code: 'FAIL', message: expect.any(String) });
    }
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, sim.callbackFor(no, { ...paid, mchid: '1900000000' }))).status).toBe(400);
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, sim.callbackFor(no, { ...paid, amount: { total: 1, payer_total: 1, currency: 'CNY' } }))).status).toBe(400);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    expect(await statusOf(started.id)).toBe('pending');
    expect((await auditsOf(started.id)).map((a) => [a.action, a.detail.reason ?? a.detail.reported])).toEqual([
      ['payment.notification_refused', 'appid or mchid'],
      ['payment.amount_mismatch', 1],
    ]);
    const refusals = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter(
      (e) => e.data.action === 'payment.notification_refused' && e.data.detail.provider === 'wechatpay' && e.data.detail.reason === 'signature',
    );
    expect(refusals.length).toBeGreaterThanOrEqual(4);
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, genuine)).status).toBe(204);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 5_000 });
  });

  it('recovers a payment whose callback was lost by querying WeChat Pay on its own', async () => {
    const user = newUser();
    const started = await start(user, 1_200, 'wechatpay');
    await sim.pay(outTradeNo(started.id), { deliver: false });
    await eventually(
      () => balanceOf(stack, user),
      (b) => b.available === 1_200,
    );
    expect(await statusOf(started.id)).toBe('succeeded');
  });

  it('closes an abandoned payment at WeChat Pay when it expires', async () => {
    const user = newUser();
    const started = await start(user, 1_000, 'wechatpay');
    await db().query(`UPDATE payments SET expires_at = now() - interval '1 second' WHERE id = $1`, [started.id]);
    await eventually(
      () => statusOf(started.id),
      (s) => s === 'expired',
    );
    expect(sim.orders.get(outTradeNo(started.id))!.trade_state).toBe('CLOSED');
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
  });

  it('is refused by WeChat Pay when the merchant signs with another key', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const gateway = new WechatPayGateway(
      new WechatPayClient(
        {
          appId: sim.appId,
          mchId: sim.mchId,
          privateKey: other,
          merchantSerial: sim.merchantSerial,
          platformKeys: wechatPayPlatformKeys({ publicKey: sim.publicKey, publicKeyId: sim.publicKeyId }),
          apiV3Key: sim.apiV3Key,
          baseUrl: sim.baseUrl,
          timeoutMs: 5_000,
        },
        createLogger('wallet-test', 'silent'),
      ),
      WECHATPAY_NOTIFY_URL,
    );
    const before = sim.refusedRequests.length;
    const refused = gateway.createPayment({ paymentId: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', amount: 100, expiresAt: new Date(Date.now() + 60_000) });
    await expect(refused).rejects.toThrow(ProviderFailed);
    await expect(refused).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'bad_answer' });
    expect(sim.refusedRequests.slice(before)).toContain('POST /v3/pay/transactions/native');
  });

  it('refuses a callback signed with a key it was not given (a serial it does not know), and answers signed so only by the public key', async () => {
    const user = newUser();
    const started = await start(user, 700, 'wechatpay');
    await sim.pay(outTradeNo(started.id), { deliver: false });
    // a genuine platform-certificate signature, but this merchant verifies by the public key only
    sim.signWith('certificate');
    const unknownSerial = sim.callbackFor(outTradeNo(started.id));
    const res = await sim.sendCallback(WECHATPAY_NOTIFY_URL, unknownSerial);
    // and the answers WeChat Pay gives while signing so are not believed either
    const answered = await client.post(`/api/wallet/recharge/pay/${started.id}/query`, {}, user.token);
    sim.signWith('publicKey');
    expect(unknownSerial.headers['Wechatpay-Serial']).toBe(sim.platformSerial);
    expect(res.status).toBe(400);
    expect(answered.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(await statusOf(started.id)).toBe('pending');
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, sim.callbackFor(outTradeNo(started.id)))).status).toBe(204);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 700 });
  });

  it('takes a genuine refund callback and refuses one signed with an unknown serial or altered', async () => {
    const user = newUser();
    const started = await start(user, 800, 'wechatpay');
    await sim.pay(outTradeNo(started.id));
    // the refund itself is made by the adapter: what the wallet does with refunds is not this file's
    sim.setRefundStatus('PROCESSING');
    const refundId = randomUUID();
    const refunds = new WechatPayRefunds(wechatPayClientFor(sim), WECHATPAY_REFUND_NOTIFY_URL);
    expect(await refunds.refund({ refundId, paymentId: started.id, gatewayTxnId: null, refundAmount: 800, paymentAmount: 800, reason: 'test' })).toMatchObject({ outcome: 'unknown' });
    sim.setRefundStatus('SUCCESS');
    const refundNo = outTradeNo(refundId);
    expect((await sim.finishRefund(refundNo, 'SUCCESS'))?.status).toBe(204);
    sim.signWith('certificate');
    const unknownSerial = sim.refundCallbackFor(refundNo);
    sim.signWith('publicKey');
    expect((await sim.sendCallback(WECHATPAY_REFUND_NOTIFY_URL, unknownSerial)).status).toBe(400);
    const tampered = sim.refundCallbackFor(refundNo);
    expect((await sim.sendCallback(WECHATPAY_REFUND_NOTIFY_URL, { ...tampered, body: tampered.body.replace('REFUND.SUCCESS', 'REFUND.CLOSED') })).status).toBe(400);
  });

  it('serves a recharge naming no channel by the first enabled one, and a pay method whose channel is off by the sandbox', async () => {
    const res = await client.post('/api/wallet/recharge/pay', { amount: 100 }, newUser().token);
    expect(res.body.provider).toBe('wechatpay');
    expect((await client.post('/api/wallet/recharge/pay', { amount: 100, channel: 'alipay' }, newUser().token)).body.provider).toBe('sandbox');
  });
});
