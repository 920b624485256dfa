import { v7 as uuidv7 } from 'uuid';
import { ReconciliationRun, Refund } from '@market/contracts';
import { api, eventually, outboxEvents, startAlipaySimulator, type AlipaySimulator, type Stack } from '@market/testkit';
import { shanghaiDayBounds, shanghaiDayOf } from '../src/domain/shanghai-day';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { alipayEnv, findingsOfRun, ledgerSum, newUser, startProviderStack, startRecharge, withFinance, type Caller } from './support';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('Alipay refunds (alipay.trade.refund) and daily bills, through the gateway against the Alipay simulator', () => {
  let sim: AlipaySimulator, stack: Stack, client: ReturnType<typeof api>, finance: Caller;
  beforeAll(async () => {
    ({ sim, stack, client, finance } = await withFinance(startProviderStack(startAlipaySimulator(), ['admin', 'wallet'], (s) => ({ ...alipayEnv(s), REFUND_CHECK_MS: '100' }))));
  });
  afterAll(() => stack?.stop());
  afterEach(() => {
    sim.setRefundMode('success');
    sim.setRefundQueriesFailing(false);
  });

  const db = () => stack.services.wallet!.ctx.db;
  const available = async (user: Caller) => (await client.get('/api/wallet/balance', user.token)).body.available as number;
  const accountBalance = async (key: string) => Number((await db().query(`SELECT balance FROM accounts WHERE key = $1`, [key]))[0]?.balance ?? 0);
  const refundRow = async (id: string) => (await db().query(`SELECT status, checks FROM refunds WHERE id = $1`, [id]))[0] as { status: string; checks: number };
  const eventsOf = async (type: 'refund.refunded' | 'refund.failed', id: string) => (await outboxEvents(stack, 'wallet', type)).filter((e) => e.data.id === id);

  /** A recharge paid at Alipay, credited on its signed notification. */
  async function paidRecharge(user: Caller, amount: number): Promise<string> {
    const started = await startRecharge(stack, user, amount, 'alipay');
    expect(await sim.pay(started.id)).toEqual({ status: 200, text: 'success' });
    return started.id;
  }

  /**
   * A refund of `amount` asked for by the user and approved by finance: the amount is held and the
   * refund sent at once; `status` is how the approval left it (Alipay's answer applied).
   */
  async function approvedRefund(user: Caller, paymentId: string, amount: number) {
    const asked = await client.post('/api/wallet/refunds', { payment_id: paymentId, amount }, user.token);
    expect(asked.status).toBe(201);
    const refund = Refund.strict().parse(asked.body);
    expect(refund).toMatchObject({ provider: 'alipay', status: 'requested', amount });
    const approved = await client.post(`/api/admin/refunds/${refund.id}/approve`, {}, finance.token);
    expect(approved.status).toBe(200);
    return { id: refund.id, status: approved.body.status as string };
  }

  const refundedOnce = async (refundId: string, paymentId: string, yuan: string) => {
    await eventually(() => refundRow(refundId), (r) => r.status === 'refunded');
    expect([...sim.refunds.values()].filter((r) => r.out_trade_no === paymentId)).toEqual([
      expect.objectContaining({ out_request_no: refundId, refund_amount: yuan }),
    ]);
    expect(await accountBalance(`refund:${refundId}`)).toBe(0);
    expect(await eventsOf('refund.refunded', refundId)).toHaveLength(1);
  };

  it('refunds a recharge once at Alipay when the answer is SYSTEM_ERROR and Alipay cannot say for a while: the hold stays until Alipay says refunded', async () => {
    const user = newUser();
    const payment = await paidRecharge(user, 5_000);
    sim.setRefundMode('system_error');
    sim.setRefundQueriesFailing(true);
    const refundedBefore = await accountBalance('refunded:alipay');
    const refund = await approvedRefund(user, payment, 3_000);
    expect(refund.status).toBe('processing');
    expect(await available(user)).toBe(2_000);
    // Alipay refunded it but answered SYSTEM_ERROR, and its queries fail: asked again and again, nothing resent
    await eventually(() => refundRow(refund.id), (r) => r.checks >= 3);
    expect((await refundRow(refund.id)).status).toBe('processing');
    expect(await accountBalance(`refund:${refund.id}`)).toBe(3_000);
    expect(sim.refundRequests.get(refund.id)).toBe(1);

    sim.setRefundQueriesFailing(false);
    await refundedOnce(refund.id, payment, '30.00');
    expect(sim.refundRequests.get(refund.id)).toBe(1);
    expect(await accountBalance('refunded:alipay')).toBe(refundedBefore + 3_000);
    expect(await available(user)).toBe(2_000);
    // what is left of the recharge is 20.00: a request for more is refused
    const more = await client.post('/api/wallet/refunds', { payment_id: payment, amount: 2_001 }, user.token);
    expect([more.status, more.body.code]).toEqual([422, 'REFUND_EXCEEDS_PAYMENT']);
  });

  it('sends a refund to Alipay once under three racing approvals', async () => {
    const user = newUser();
    const payment = await paidRecharge(user, 6_000);
    const refund = Refund.strict().parse((await client.post('/api/wallet/refunds', { payment_id: payment, amount: 6_000 }, user.token)).body);
    const answers = await Promise.all([1, 2, 3].map(() => client.post(`/api/admin/refunds/${refund.id}/approve`, {}, finance.token)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    await refundedOnce(refund.id, payment, '60.00');
    expect(sim.refundRequests.get(refund.id)).toBe(1);
    expect(await available(user)).toBe(0);
  });

  it.each([
    ['a lost answer (504)', 'lost'],
    ['a system busy answer (code 20000)', 'busy'],
  ] as const)('finds a refund Alipay made behind %s by asking, and refunds it once', async (_what, mode) => {
    const user = newUser();
    const payment = await paidRecharge(user, 4_000);
    sim.setRefundMode(mode);
    const refund = await approvedRefund(user, payment, 4_000);
    expect(refund.status).toBe('processing');
    await refundedOnce(refund.id, payment, '40.00');
    expect(sim.refundRequests.get(refund.id)).toBe(1);
    expect(await available(user)).toBe(0);
  });

  it('sends again under the same out_request_no a refund Alipay says it never made, and Alipay refunds it once', async () => {
    const user = newUser();
    const payment = await paidRecharge(user, 3_000);
    // SYSTEM_ERROR before anything was refunded: the query finds no refund under that number
    sim.setRefundMode('system_error_before');
    const refund = await approvedRefund(user, payment, 1_200);
    expect(refund.status).toBe('processing');
    await eventually(async () => sim.refundRequests.get(refund.id) ?? 0, (n) => n >= 2);
    expect((await refundRow(refund.id)).status).toBe('processing');
    expect(await accountBalance(`refund:${refund.id}`)).toBe(1_200);
    sim.setRefundMode('success');
    await refundedOnce(refund.id, payment, '12.00');
    expect(await available(user)).toBe(1_800);
  });

  it('fails a refund Alipay refuses for good (the payment is no longer refundable) and only then gives the hold back', async () => {
    const user = newUser();
    const payment = await paidRecharge(user, 2_500);
    sim.trades.get(payment)!.status = 'TRADE_CLOSED';
    const refund = await approvedRefund(user, payment, 2_500);
    await eventually(() => refundRow(refund.id), (r) => r.status === 'failed');
    expect((await eventsOf('refund.failed', refund.id)).map((e) => e.data.reason)).toEqual(['ACQ.TRADE_STATUS_ERROR']);
    expect(sim.refunds.has(refund.id)).toBe(false);
    expect(await accountBalance(`refund:${refund.id}`)).toBe(0);
    expect(await available(user)).toBe(2_500);
  });

  describe('reconciliation of Alipay’s daily bills (trade and account flow, zips of GBK CSV)', () => {
    const noonOf = (day: string) => new Date(shanghaiDayBounds(day).start.getTime() + 12 * 60 * 60 * 1000);
    const run = (day: string) => client.post('/api/admin/reconciliations', { provider: 'alipay', day }, finance.token);
    const runsOf = async (day: string) => (await db().query(`SELECT count(*)::int AS n FROM reconciliation_runs WHERE provider = 'alipay' AND day = $1`, [day]))[0].n as number;

    /** A recharge paid at Alipay, dated by both sides at noon of `day`. */
    async function paidOn(user: Caller, amount: number, day: string) {
      const id = await paidRecharge(user, amount);
      sim.trades.get(id)!.gmt_payment = `${day} 12:00:00`;
      await db().query(`UPDATE payments SET paid_at = $2 WHERE id = $1`, [id, noonOf(day)]);
      return id;
    }

    /** A refund asked for, approved and refunded at Alipay, dated by both sides at noon of `day`. */
    async function refundedOn(user: Caller, paymentId: string, amount: number, day: string) {
      const refund = await approvedRefund(user, paymentId, amount);
      await eventually(() => refundRow(refund.id), (r) => r.status === 'refunded');
      sim.refunds.get(refund.id)!.gmt_refund_pay = `${day} 12:00:00`;
      await db().query(`UPDATE refunds SET refunded_at = $2 WHERE id = $1`, [refund.id, noonOf(day)]);
      return refund.id;
    }

    it('a day where Alipay’s bills and the ledger agree is clean, fees summed from the bill', async () => {
      const day = shanghaiDayOf(new Date(Date.now() - 5 * DAY_MS));
      const user = newUser();
      const payment = await paidOn(user, 2_000, day);
      await refundedOn(user, payment, 500, day);
      const res = await run(day);
      expect(res.status).toBe(200);
      const clean = ReconciliationRun.strict().parse(res.body);
      // fees: 0.6 % of 20.00 on the payment (0.12) and of 5.00 returned on the refund (0.03)
      expect(clean).toMatchObject({ provider: 'alipay', day, status: 'clean', bill_lines: 2, ledger_lines: 2, matched: 2, findings: 0, bill_total: 1_500, ledger_total: 1_500, fee_total: 15 });
    });

    it('a bill line the ledger lacks and a movement the bill lacks are exactly two findings', async () => {
      const day = shanghaiDayOf(new Date(Date.now() - 4 * DAY_MS));
      const user = newUser();
      const billed = await paidOn(user, 1_500, day);
      const unbilled = await paidOn(user, 3_000, day);
      await refundedOn(user, billed, 400, day);
      const stranger = uuidv7();
      sim.dropBillLine(day, unbilled);
      sim.addBillLine(day, { kind: 'payment', reference: stranger, amount: '7.77' });

      const res = await run(day);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'findings', findings: 2, matched: 2, bill_lines: 3, ledger_lines: 3, bill_total: 1_877, ledger_total: 4_100 });
      expect(await findingsOfRun(stack, res.body.id, finance)).toEqual([
        ['missing_in_bill', 'payment', unbilled, null, 3_000],
        ['missing_in_ledger', 'payment', stranger, 777, null],
      ]);
      expect((await run(day)).body).toEqual(res.body);
      expect(await runsOf(day)).toBe(1);
    });

    it('reads the transfers of the account-flow bill: a transfer the ledger never made is a finding', async () => {
      const day = shanghaiDayOf(new Date(Date.now() - 3 * DAY_MS));
      const withdrawal = uuidv7();
      sim.addBillLine(day, { kind: 'transfer', reference: withdrawal.replaceAll('-', ''), amount: '12.30' });
      const res = await run(day);
      expect(res.body).toMatchObject({ status: 'findings', findings: 1, bill_lines: 1, ledger_lines: 0 });
      expect(await findingsOfRun(stack, res.body.id, finance)).toEqual([['missing_in_ledger', 'transfer', withdrawal, 1_230, null]]);
    });

    it('answers 409 BILL_NOT_READY while Alipay has not published the day’s bill, storing nothing, and runs once it has', async () => {
      const day = shanghaiDayOf(new Date(Date.now() - 6 * DAY_MS));
      sim.withholdBill(day);
      const early = await run(day);
      expect([early.status, early.body.code]).toEqual([409, 'BILL_NOT_READY']);
      expect(await runsOf(day)).toBe(0);
      sim.withholdBill(day, false);
      expect((await run(day)).body).toMatchObject({ status: 'clean', day });
    });
  });

  it('keeps the ledger balanced and wallet:verify true', async () => {
    expect(await ledgerSum(stack)).toBe(0);
    expect(await findLedgerDifferences(db())).toEqual([]);
  });
});
