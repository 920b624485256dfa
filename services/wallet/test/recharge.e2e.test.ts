import { v7 as uuidv7 } from 'uuid';
import { RechargePayment } from '@market/contracts';
import { api, backOfficeAlerts, eventually, outboxEvents, startStack, type Stack } from '@market/testkit';
import { signPaygateBody } from '../src/domain/paygate-signature';
import { balanceOf, callbackFor, ledgerSum, newAdmin, newUser, notify, PAYGATE_SECRET, type Caller } from './support';

describe('recharge through the payment gateway', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    // notify and admin: a late gateway success reaches the back office's notifications
    stack = await startStack({ services: ['wallet', 'notify', 'admin'], serviceEnv: { wallet: { PAYMENT_EXPIRY_SCAN_MS: '100' } } });
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;

  async function start(user: Caller, amount = 5_000) {
    const res = await client.post('/api/wallet/recharge/pay', { amount, channel: 'wechat' }, user.token);
    expect(res.status).toBe(201);
    return RechargePayment.strict().parse(res.body);
  }

  async function payment(user: Caller, id: string) {
    return (await client.post(`/api/wallet/recharge/pay/${id}/query`, {}, user.token)).body;
  }

  /** The payer paid at the gateway but its callback never reached us: only the gateway's record knows. */
  async function paidAtGatewayOnly(id: string) {
    await db().query(`UPDATE sandbox_payments SET status = 'succeeded', paid_at = now() WHERE payment_id = $1`, [id]);
  }

  async function rechargeLines(user: Caller) {
    return (await client.get('/api/wallet/ledger?biz_type=recharge', user.token)).body.items as Array<{ amount: number }>;
  }

  it('credits the wallet once the tester marks the payment paid on the sandbox page', async () => {
    const user = newUser();
    const started = await start(user, 12_300);
    expect(started).toMatchObject({ status: 'pending', amount: 12_300, channel: 'wechat', paid_at: null, pay_url: `/api/payments/sandbox/${started.id}` });
    const minutes = (Date.parse(started.expires_at) - Date.parse(started.created_at)) / 60_000;
    expect(minutes).toBe(15);

    const page = await client.raw('GET', started.pay_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('¥123.00');

    const completed = await client.post(`${started.pay_url}/complete`, { status: 'succeeded' });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ payment_id: started.id, status: 'succeeded' });

    expect(await balanceOf(stack, user)).toEqual({ available: 12_300, frozen: 0, currency: 'CNY' });
    const after = await payment(user, started.id);
    expect(after).toMatchObject({ status: 'succeeded', paid_at: expect.any(String) });
    const events = (await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.payment_id === started.id);
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ user_id: user.id, amount: 12_300, purpose: 'recharge', order_id: null, gateway_txn_id: expect.stringMatching(/^sbx_/) }),
    ]);
    expect((await client.post(`${started.pay_url}/complete`, { status: 'failed' })).status).toBe(409);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 12_300 });
  });

  it('moves a payment the tester marks failed to failed with payment.failed, crediting nothing until a signed success arrives', async () => {
    const user = newUser();
    const started = await start(user);
    expect((await client.post(`${started.pay_url}/complete`, { status: 'failed' })).body).toEqual({ payment_id: started.id, status: 'failed' });
    expect(await payment(user, started.id)).toMatchObject({ status: 'failed', paid_at: null });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    const failed = (await outboxEvents(stack, 'wallet', 'payment.failed')).filter((e) => e.data.payment_id === started.id);
    expect(failed.map((e) => e.data)).toEqual([expect.objectContaining({ user_id: user.id, amount: 5_000, purpose: 'recharge' })]);
    // a success the gateway signs later means the money did arrive: credited once, audited (issue 19 item 6)
    expect((await notify(stack, callbackFor(started))).status).toBe(200);
    expect((await notify(stack, callbackFor(started))).status).toBe(200);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 5_000 });
    expect(await payment(user, started.id)).toMatchObject({ status: 'succeeded' });
    const audits = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === started.id);
    expect(audits.map((e) => [e.data.action, e.data.detail.was])).toEqual([['payment.late_success_credited', 'failed']]);
    const alerts = await backOfficeAlerts(stack, await newAdmin(stack, ['finance']), started.id);
    expect(alerts).toEqual([
      expect.objectContaining({
        kind: 'ops.alert',
        title: '[warning] PAYMENT_LATE_SUCCESS · wallet',
        biz_type: 'ops',
        data: expect.objectContaining({ alert: 'PAYMENT_LATE_SUCCESS', subject_type: 'payment', subject_id: started.id, was: 'failed', amount: 5_000, user_id: user.id }),
      }),
    ]);
    expect(alerts[0]!.body).toContain('5000 fen');
  });

  it('settles a payment by querying the gateway when its callback never arrived; only the payer may query', async () => {
    const user = newUser();
    const started = await start(user);
    expect(await payment(user, started.id)).toMatchObject({ status: 'pending' });
    expect((await client.post(`/api/wallet/recharge/pay/${started.id}/query`, {}, newUser().token)).status).toBe(404);
    expect((await client.post(`/api/wallet/recharge/pay/not-an-id/query`, {}, user.token)).status).toBe(404);
    await paidAtGatewayOnly(started.id);
    expect(await payment(user, started.id)).toMatchObject({ status: 'succeeded' });
    expect(await payment(user, started.id)).toMatchObject({ status: 'succeeded' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 5_000 });
  });

  it('credits exactly once for 50 concurrent identical callbacks plus queries', async () => {
    const user = newUser();
    const started = await start(user, 7_777);
    await paidAtGatewayOnly(started.id);
    const body = callbackFor(started);
    const answers = await Promise.all([
      ...Array.from({ length: 50 }, () => notify(stack, body).then((r) => r.status)),
      ...Array.from({ length: 10 }, () => client.post(`/api/wallet/recharge/pay/${started.id}/query`, {}, user.token).then((r) => r.status)),
    ]);
    expect(answers.every((s) => s === 200)).toBe(true);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 7_777 });
    expect(await rechargeLines(user)).toHaveLength(1);
    expect((await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.payment_id === started.id)).toHaveLength(1);
    expect(await ledgerSum(stack)).toBe(0);
  });

  it('answers 400 to a bad signature or timestamp and changes nothing', async () => {
    const user = newUser();
    const started = await start(user);
    const body = callbackFor(started);
    const now = Math.floor(Date.now() / 1000);
    const secondsFromNow = (offset: number) => Math.floor(Date.now() / 1000) + offset;
    const raw = JSON.stringify(body);
    const refused = [
      await notify(stack, body, { secret: 'not-the-paygate-secret-0000000000000000' }),
      await notify(stack, body, { at: secondsFromNow(-301) }),
      // the wallet reads its clock a moment after this one: a second may have turned meanwhile, which
      // brings a time ahead nearer (301 s ahead became 300, inside the tolerance, on a loaded CI run)
      await notify(stack, body, { at: secondsFromNow(305) }),
      await notify(stack, body, { signature: `t=${now}` }),
      await notify(stack, body, { signature: 'garbage' }),
      await notify(stack, body, { signature: `t=${now},v1=${'0'.repeat(64)}` }),
      // signed bytes, then changed: the same JSON with other whitespace is other bytes
      await notify(stack, body, { raw: JSON.stringify(body, null, 1), signature: signPaygateBody(PAYGATE_SECRET, raw, now) }),
      await client.post('/api/payments/paygate/notify', body),
    ];
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(['SIGNATURE_INVALID', 'VALIDATION_FAILED']).toContain(res.body.code);
    }
    expect(refused.filter((r) => r.body.code === 'SIGNATURE_INVALID')).toHaveLength(7);
    expect(await payment(user, started.id)).toMatchObject({ status: 'pending' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
  });

  it('answers 422 PAYGATE_REJECTED to another amount, credits nothing, and audits it', async () => {
    const user = newUser();
    const started = await start(user, 5_000);
    const res = await notify(stack, callbackFor(started, { amount: 500_000 }));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('PAYGATE_REJECTED');
    expect(await payment(user, started.id)).toMatchObject({ status: 'pending' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    const audits = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === started.id);
    expect(audits.map((e) => e.data)).toEqual([
      expect.objectContaining({ action: 'payment.amount_mismatch', biz_type: 'payment', result: 'failure', detail: expect.objectContaining({ expected: 5_000, reported: 500_000 }) }),
    ]);
  });

  it('ignores unknown callback fields and takes paid_at in any ISO 8601 offset', async () => {
    const user = newUser();
    const started = await start(user);
    const res = await notify(stack, { ...callbackFor(started, { paid_at: '2026-11-22T17:00:00+08:00' }), fee: 3, extra: { nested: true } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await payment(user, started.id)).toMatchObject({ status: 'succeeded', paid_at: '2026-11-22T09:00:00.000Z' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 5_000 });
  });

  it('refuses signed callbacks it cannot read: malformed JSON, off-schema body, unknown payment', async () => {
    expect((await notify(stack, undefined, { raw: '{"payment_id":' })).body.code).toBe('MALFORMED_JSON');
    const offSchema = await notify(stack, { payment_id: 'x', amount: '12' });
    expect(offSchema.status).toBe(400);
    expect(offSchema.body.code).toBe('VALIDATION_FAILED');
    const unknown = await notify(stack, callbackFor({ id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', amount: 100 }));
    expect(unknown.status).toBe(404);
  });

  it('expires an unpaid payment past expires_at, but credits one the gateway says was paid', async () => {
    const user = newUser();
    const unpaid = await start(user, 1_000);
    const paid = await start(user, 2_000);
    await paidAtGatewayOnly(paid.id);
    await db().query(`UPDATE payments SET expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`, [[unpaid.id, paid.id]]);
    await eventually(() => payment(user, unpaid.id), (p) => p.status === 'expired');
    await eventually(() => payment(user, paid.id), (p) => p.status === 'succeeded');
    expect(await balanceOf(stack, user)).toMatchObject({ available: 2_000 });
    const expired = (await outboxEvents(stack, 'wallet', 'payment.expired')).filter((e) => e.data.user_id === user.id);
    expect(expired.map((e) => e.data)).toEqual([expect.objectContaining({ payment_id: unpaid.id, amount: 1_000, purpose: 'recharge' })]);
    // the gateway closed it too: the pay page can no longer complete it
    expect((await client.post(`${unpaid.pay_url}/complete`, { status: 'succeeded' })).status).toBe(409);
    // a signed success arriving after the expiry is money that arrived: credited, never dropped (issue 19 item 6)
    expect((await notify(stack, callbackFor(unpaid))).status).toBe(200);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 3_000 });
    const late = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === unpaid.id);
    expect(late.map((e) => [e.data.action, e.data.detail.was, e.data.detail.source])).toEqual([['payment.late_success_credited', 'expired', null]]);
    const alerts = await backOfficeAlerts(stack, await newAdmin(stack, ['finance']), unpaid.id);
    expect(alerts.map((n) => [n.data.alert, n.data.was, n.data.amount])).toEqual([['PAYMENT_LATE_SUCCESS', 'expired', 1_000]]);
  });

  it('decides each overdue payment whose gateway reports another amount once, and the scan reaches the rest (issue 19 item 7)', async () => {
    const user = newUser();
    // more mismatching overdue payments than one scan takes (100), all older than a plain overdue one
    const mismatched = Array.from({ length: 130 }, () => uuidv7());
    await db().query(
      `INSERT INTO payments (id, user_id, amount, channel, provider, status, pay_url, expires_at, created_at)
       SELECT id, $2, 1000, 'alipay', 'sandbox', 'pending', '/x', now() - interval '1 hour', now() - interval '2 hours' FROM unnest($1::uuid[]) AS id`,
      [mismatched, user.id],
    );
    await db().query(
      `INSERT INTO sandbox_payments (payment_id, amount, channel, status, gateway_txn_id, expires_at, paid_at)
       SELECT id, 999, 'alipay', 'succeeded', 'sbx_' || id, now() - interval '1 hour', now() FROM unnest($1::uuid[]) AS id`,
      [mismatched],
    );
    const plain = await start(user, 1_000);
    await db().query(`UPDATE payments SET expires_at = now() - interval '1 second' WHERE id = $1`, [plain.id]);
    await eventually(() => payment(user, plain.id), (p) => p.status === 'expired', 45_000);
    await eventually(
      async () => (await db().query(`SELECT count(*)::int AS n FROM payments WHERE id = ANY($1::uuid[]) AND status = 'failed'`, [mismatched]))[0].n,
      (n) => n === mismatched.length,
      45_000,
    );
    const audits = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => mismatched.includes(e.data.biz_id));
    expect(audits).toHaveLength(mismatched.length);
    expect(audits[0]!.data).toMatchObject({ action: 'payment.amount_mismatch', detail: { source: 'expiry', expected: 1_000, reported: 999 } });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
  });

  it('keeps recharge amounts within the documented limits and honours Idempotency-Key', async () => {
    const user = newUser();
    for (const amount of [99, 5_000_001, 0, 1.5]) {
      const res = await client.post('/api/wallet/recharge/pay', { amount, channel: 'alipay' }, user.token);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await client.post('/api/wallet/recharge/pay', { amount: 100, channel: 'paypal' }, user.token)).status).toBe(400);
    const headers = { 'idempotency-key': `k-${user.id}` };
    const first = await client.post('/api/wallet/recharge/pay', { amount: 100, channel: 'alipay' }, user.token, headers);
    const again = await client.post('/api/wallet/recharge/pay', { amount: 100, channel: 'alipay' }, user.token, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const reused = await client.post('/api/wallet/recharge/pay', { amount: 200, channel: 'alipay' }, user.token, headers);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await client.get('/api/payments/sandbox/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b')).status).toBe(404);
  });
});
