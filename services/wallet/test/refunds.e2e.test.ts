import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, Refund } from '@market/contracts';
import { api, eventually, internalClientAs, newAdmin, newUser, outboxEvents, startStack, type Caller, type Stack } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';

describe('refunds of recharges to the original payment method, on the ledger (sandbox provider)', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let finance: Caller;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin', 'wallet'], serviceEnv: { wallet: { REFUND_CHECK_MS: '100' } } });
    // refunds are finance's, as recharges are (ADR 0033)
    finance = await newAdmin(stack, ['finance']);
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;

  /** A recharge paid on the sandbox's pay page, as a tester pays it. */
  async function paidRecharge(user: Caller, amount: number): Promise<string> {
    const started = await client.post('/api/wallet/recharge/pay', { amount }, user.token);
    expect(started.status).toBe(201);
    expect((await client.post(`/api/payments/sandbox/${started.body.id}/complete`, { status: 'succeeded' })).status).toBe(200);
    return started.body.id;
  }

  async function funded(...recharges: number[]) {
    const user = newUser();
    const payments: string[] = [];
    for (const amount of recharges) payments.push(await paidRecharge(user, amount));
    return { user, payments };
  }

  const available = async (user: Caller) => (await client.get('/api/wallet/balance', user.token)).body.available as number;
  const ask = (user: Caller, paymentId: string, amount: number, headers?: Record<string, string>) =>
    client.post('/api/wallet/refunds', { payment_id: paymentId, amount }, user.token, headers);
  const approve = (id: string) => client.post(`/api/admin/refunds/${id}/approve`, {}, finance.token);
  const accountBalance = async (key: string) => Number((await db().query(`SELECT balance FROM accounts WHERE key = $1`, [key]))[0]?.balance ?? 0);
  const sandboxRefunds = async (id: string) => db().query(`SELECT amount::int, status FROM sandbox_refunds WHERE refund_id = $1`, [id]);
  const refundRow = async (id: string) => (await db().query(`SELECT status, checks FROM refunds WHERE id = $1`, [id]))[0] as { status: string; checks: number };
  const spend = (user: Caller, amount: number) =>
    internalClientAs(stack, 'orders').call(chargeOrderEscrow, { params: { id: uuidv7() }, body: { renter_id: user.id, owner_id: newUser().id, amount } });
  const eventsOf = async (type: 'refund.requested' | 'refund.refunded' | 'refund.failed' | 'refund.rejected', id: string) =>
    (await outboxEvents(stack, 'wallet', type)).filter((e) => e.data.id === id);

  it('an approved request holds the amount, is sent once under racing approvals, and leaves the platform when the provider says refunded', async () => {
    const { user, payments } = await funded(5_000);
    const headers = { 'idempotency-key': `r-${user.id}` };
    const first = await ask(user, payments[0]!, 3_000, headers);
    const again = await ask(user, payments[0]!, 3_000, headers);
    expect(first.status).toBe(201);
    const refund = Refund.strict().parse(first.body);
    expect(again.body.id).toBe(refund.id);
    expect(refund).toMatchObject({ status: 'requested', kind: 'user_request', provider: 'sandbox', amount: 3_000, payment_id: payments[0] });
    // nothing is held while the request waits for finance
    expect(await available(user)).toBe(5_000);
    expect(await eventsOf('refund.requested', refund.id)).toHaveLength(1);

    const answers = await Promise.all([1, 2, 3].map(() => approve(refund.id)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(answers.find((a) => a.status === 200)!.body).toMatchObject({ status: 'processing', decided_by: finance.id });
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(['INVALID_STATE', 'INVALID_STATE']);
    expect(await available(user)).toBe(2_000);
    expect(await accountBalance(`refund:${refund.id}`)).toBe(3_000);
    expect(await sandboxRefunds(refund.id)).toEqual([{ amount: 3_000, status: 'processing' }]);

    const refundedBefore = await accountBalance('refunded:sandbox');
    expect((await client.post(`/api/payments/sandbox/refunds/${refund.id}/complete`, { status: 'succeeded' })).body).toEqual({ refund_id: refund.id, status: 'succeeded' });
    const done = await eventually(async () => (await client.get(`/api/admin/refunds?payment_id=${payments[0]}`, finance.token)).body.items[0], (r) => r?.status === 'refunded');
    expect(done).toMatchObject({ refunded_at: expect.any(String), provider_refund_id: expect.stringMatching(/^sbr_/), finished_at: expect.any(String) });
    expect(await accountBalance(`refund:${refund.id}`)).toBe(0);
    expect(await accountBalance('refunded:sandbox')).toBe(refundedBefore + 3_000);
    expect(await available(user)).toBe(2_000);
    expect(await sandboxRefunds(refund.id)).toHaveLength(1);
    expect(await eventsOf('refund.refunded', refund.id)).toHaveLength(1);
    const audits = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === refund.id);
    expect(audits.map((e) => [e.data.action, e.data.actor_id])).toEqual([['refund.approve', finance.id]]);
    const ledger = (await client.get('/api/wallet/ledger', user.token)).body.items.map((e: { biz_type: string; amount: number }) => [e.biz_type, e.amount]);
    expect(ledger[0]).toEqual(['refund_hold', -3_000]);
    // what is left of the recharge is 2 000: a request for more is refused
    const more = await ask(user, payments[0]!, 2_001);
    expect([more.status, more.body.code]).toEqual([422, 'REFUND_EXCEEDS_PAYMENT']);
  });

  it('an unknown outcome is asked about again and keeps the hold; only a final failure gives it back', async () => {
    const { user, payments } = await funded(4_000);
    const refund = (await ask(user, payments[0]!, 4_000)).body;
    expect((await approve(refund.id)).body.status).toBe('processing');
    // the sandbox keeps answering "processing": the job asks again (checks grow), the money stays held
    await eventually(() => refundRow(refund.id), (r) => r.checks >= 3);
    expect((await refundRow(refund.id)).status).toBe('processing');
    expect(await available(user)).toBe(0);
    expect(await accountBalance(`refund:${refund.id}`)).toBe(4_000);
    expect(await sandboxRefunds(refund.id)).toHaveLength(1);

    await client.post(`/api/payments/sandbox/refunds/${refund.id}/complete`, { status: 'failed' });
    await eventually(() => refundRow(refund.id), (r) => r.status === 'failed');
    expect(await available(user)).toBe(4_000);
    expect(await accountBalance(`refund:${refund.id}`)).toBe(0);
    expect((await eventsOf('refund.failed', refund.id)).map((e) => e.data.reason)).toEqual(['REFUND_FAILED_BY_TESTER']);
    expect((await client.post(`/api/payments/sandbox/refunds/${refund.id}/complete`, { status: 'succeeded' })).body.code).toBe('INVALID_STATE');
  });

  it('a refund the provider says it never received is sent again under the same id, and refunded once', async () => {
    const { user, payments } = await funded(3_000);
    const refund = (await ask(user, payments[0]!, 1_200)).body;
    expect((await approve(refund.id)).body.status).toBe('processing');
    // as if the request had been lost on its way: the provider has no record of it
    await db().query(`DELETE FROM sandbox_refunds WHERE refund_id = $1`, [refund.id]);
    await eventually(() => sandboxRefunds(refund.id), (rows) => rows.length === 1);
    expect((await refundRow(refund.id)).status).toBe('processing');
    await client.post(`/api/payments/sandbox/refunds/${refund.id}/complete`, { status: 'succeeded' });
    await eventually(() => refundRow(refund.id), (r) => r.status === 'refunded');
    expect(await sandboxRefunds(refund.id)).toEqual([{ amount: 1_200, status: 'succeeded' }]);
    expect(await available(user)).toBe(1_800);
  });

  it('refuses more than the available balance, at the request and at the approval, with nothing changed', async () => {
    const { user, payments } = await funded(5_000);
    expect((await spend(user, 4_000)).amount).toBe(4_000);
    const tooMuch = await ask(user, payments[0]!, 3_000);
    expect([tooMuch.status, tooMuch.body.code]).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect((await db().query(`SELECT count(*)::int AS n FROM refunds WHERE user_id = $1`, [user.id]))[0].n).toBe(0);

    const refund = (await ask(user, payments[0]!, 1_000)).body;
    expect(refund.status).toBe('requested');
    expect((await spend(user, 500)).amount).toBe(500);
    const late = await approve(refund.id);
    expect([late.status, late.body.code]).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect((await refundRow(refund.id)).status).toBe('requested');
    expect(await available(user)).toBe(500);
    expect(await accountBalance(`refund:${refund.id}`)).toBe(0);
    expect(await sandboxRefunds(refund.id)).toEqual([]);

    const rejected = await client.post(`/api/admin/refunds/${refund.id}/reject`, { reason: '余额已用于订单' }, finance.token);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: '余额已用于订单' });
    expect(await eventsOf('refund.rejected', refund.id)).toHaveLength(1);
  });

  it('refuses another user’s, an unknown or an unpaid recharge, and bad input, without a 500', async () => {
    const { user, payments } = await funded(2_000);
    const stranger = newUser();
    expect((await ask(stranger, payments[0]!, 100)).status).toBe(404);
    expect((await ask(user, 'not-a-uuid', 100)).status).toBe(404);
    expect((await ask(user, payments[0]!, 0)).status).toBe(400);
    const open = await client.post('/api/wallet/recharge/pay', { amount: 1_000 }, user.token);
    expect((await ask(user, open.body.id, 100)).body.code).toBe('INVALID_STATE');
    expect((await approve('nope')).status).toBe(404);
    expect((await client.get('/api/wallet/refunds', stranger.token)).body.items).toEqual([]);
    const none = await client.post('/api/admin/refunds', { payment_id: payments[0], kind: 'amount_mismatch', reason: '金额不符' }, finance.token);
    expect([none.status, none.body.code]).toEqual([409, 'INVALID_STATE']);
  });

  it('finance returns money that arrived with another amount out of the gateway clearing account', async () => {
    const user = newUser();
    const started = await client.post('/api/wallet/recharge/pay', { amount: 1_000 }, user.token);
    // the payer paid 12.34 instead of 10.00: the provider has it, the ledger never credited it
    await db().query(`UPDATE sandbox_payments SET status = 'succeeded', amount = 1234, paid_at = now() WHERE payment_id = $1`, [started.body.id]);
    const clearingBefore = await accountBalance('gateway:clearing');
    const res = await client.post('/api/admin/refunds', { payment_id: started.body.id, kind: 'amount_mismatch', reason: '支付金额与订单不符' }, finance.token);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'amount_mismatch', amount: 1_234, status: 'processing', user_id: user.id });
    expect(await accountBalance('gateway:clearing')).toBe(clearingBefore - 1_234);
    expect(await available(user)).toBe(0);
    const twice = await client.post('/api/admin/refunds', { payment_id: started.body.id, kind: 'amount_mismatch', reason: '再次' }, finance.token);
    expect([twice.status, twice.body.code]).toEqual([409, 'INVALID_STATE']);
    await client.post(`/api/payments/sandbox/refunds/${res.body.id}/complete`, { status: 'succeeded' });
    await eventually(() => refundRow(res.body.id), (r) => r.status === 'refunded');
    expect(await accountBalance(`refund:${res.body.id}`)).toBe(0);
  });

  it('finance returns a recharge credited after it had been given up, out of the user’s balance', async () => {
    const user = newUser();
    const started = await client.post('/api/wallet/recharge/pay', { amount: 2_500 }, user.token);
    // the wallet gave up on the payment, then the provider reported it paid: credited late (ADR 0031)
    await db().query(`UPDATE payments SET status = 'expired', finished_at = now() WHERE id = $1`, [started.body.id]);
    expect((await client.post(`/api/payments/sandbox/${started.body.id}/complete`, { status: 'succeeded' })).status).toBe(200);
    await eventually(() => available(user), (n) => n === 2_500);
    const res = await client.post('/api/admin/refunds', { payment_id: started.body.id, kind: 'late_success', reason: '超时后到账，原路退回' }, finance.token);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'late_success', amount: 2_500, status: 'processing', decided_by: finance.id });
    expect(await available(user)).toBe(0);
    const audits = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === res.body.id);
    expect(audits.map((e) => [e.data.action, e.data.actor_id])).toEqual([['refund.start', finance.id]]);
    const again = await client.post('/api/admin/refunds', { payment_id: started.body.id, kind: 'late_success', reason: '再次' }, finance.token);
    expect([again.status, again.body.code]).toEqual([422, 'REFUND_EXCEEDS_PAYMENT']);
  });

  it('keeps wallet:verify true with refund holds and the refund accounts', async () => {
    expect(await findLedgerDifferences(db())).toEqual([]);
  });
});
