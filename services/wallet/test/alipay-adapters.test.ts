import { v7 as uuidv7 } from 'uuid';
import { createLogger } from '@market/shared/logging';
import { startAlipaySimulator, type AlipaySimulator } from '@market/testkit';
import { AlipayBills } from '../src/adapters/alipay-bills';
import { AlipayClient, AlipayGateway } from '../src/adapters/alipay-gateway';
import { AlipayPayouts } from '../src/adapters/alipay-payouts';
import { AlipayRefunds } from '../src/adapters/alipay-refunds';
import { ALIPAY_NOTIFY_URL } from './support';

describe('the Alipay refund and bill adapters (against the simulator, certificate mode)', () => {
  let sim: AlipaySimulator;
  let gateway: AlipayGateway;
  let refunds: AlipayRefunds;
  let bills: AlipayBills;
  let payouts: AlipayPayouts;

  beforeAll(async () => {
    sim = await startAlipaySimulator({ certificateMode: true });
    const client = new AlipayClient(
      {
        appId: sim.appId,
        privateKey: sim.appPrivateKey,
        verification: { mode: 'certificate', certificates: sim.certificates! },
        gateway: sim.gatewayUrl,
        notifyUrl: ALIPAY_NOTIFY_URL,
        timeoutMs: 5_000,
      },
      createLogger('wallet-test', 'silent'),
    );
    gateway = new AlipayGateway(client);
    refunds = new AlipayRefunds(client);
    bills = new AlipayBills(client, 5_000);
    payouts = new AlipayPayouts(client);
  });
  afterAll(() => sim?.stop());
  afterEach(() => sim.setRefundMode('success'));

  async function paid(amount: number): Promise<string> {
    const paymentId = uuidv7();
    await gateway.createPayment({ paymentId, amount, expiresAt: new Date(Date.now() + 60_000) });
    await sim.pay(paymentId, { deliver: false });
    return paymentId;
  }
  const refund = (paymentId: string, refundId: string, refundAmount: number) =>
    refunds.refund({ refundId, paymentId, gatewayTxnId: null, refundAmount, paymentAmount: 5_000, reason: '用户申请退款' });

  it('refunds in yuan under out_request_no, and a repeat (fund_change N) is the same refund, not a second one', async () => {
    const paymentId = await paid(5_000);
    const refundId = uuidv7();
    const first = await refund(paymentId, refundId, 1_234);
    expect(first).toMatchObject({ outcome: 'refunded', providerRefundId: sim.trades.get(paymentId)!.trade_no });
    expect(sim.refunds.get(refundId)).toMatchObject({ refund_amount: '12.34', refund_reason: '用户申请退款' });
    const again = await refund(paymentId, refundId, 1_234);
    expect(again).toMatchObject({ outcome: 'refunded' });
    expect(sim.refundRequests.get(refundId)).toBe(2);
    expect([...sim.refunds.values()].filter((r) => r.out_trade_no === paymentId)).toHaveLength(1);
    expect(await refunds.query({ refundId, paymentId })).toMatchObject({ outcome: 'refunded', refundedAt: expect.any(Date) });
  });

  it('fails a refund beyond what is left of the payment (ACQ.REASON_TRADE_REFUND_FEE_ERR) once the query finds none', async () => {
    const paymentId = await paid(5_000);
    expect((await refund(paymentId, uuidv7(), 4_000)).outcome).toBe('refunded');
    const beyond = uuidv7();
    expect(await refund(paymentId, beyond, 1_001)).toEqual({ outcome: 'failed', reason: 'ACQ.REASON_TRADE_REFUND_FEE_ERR' });
    expect(await refunds.query({ refundId: beyond, paymentId })).toEqual({ outcome: 'not_found' });
    expect(await refund(uuidv7(), uuidv7(), 100)).toEqual({ outcome: 'failed', reason: 'ACQ.TRADE_NOT_EXIST' });
  });

  it('answers unknown for SYSTEM_ERROR, code 20000 and a lost answer, never failed', async () => {
    const paymentId = await paid(5_000);
    for (const mode of ['system_error', 'busy', 'lost', 'system_error_before'] as const) {
      sim.setRefundMode(mode);
      expect((await refund(paymentId, uuidv7(), 100)).outcome).toBe('unknown');
    }
    sim.setRefundMode('success');
    sim.setRefundQueriesFailing(true);
    try {
      expect((await refunds.query({ refundId: uuidv7(), paymentId })).outcome).toBe('unknown');
    } finally {
      sim.setRefundQueriesFailing(false);
    }
  });

  it('reads the day’s bills from the zips of GBK CSV, and null while Alipay has none', async () => {
    const paymentId = await paid(8_800);
    const refundId = uuidv7();
    await refund(paymentId, refundId, 800);
    // both on the payment's day (Asia/Shanghai), however close to midnight the test runs
    const paidAt = sim.trades.get(paymentId)!.gmt_payment!;
    sim.refunds.get(refundId)!.gmt_refund_pay = paidAt;
    const day = paidAt.slice(0, 10);
    const lines = await bills.dailyBill(day);
    expect(lines?.filter((l) => l.reference === paymentId || l.reference === refundId)).toEqual([
      { kind: 'payment', reference: paymentId, providerId: sim.trades.get(paymentId)!.trade_no, amount: 8_800, fee: 53, occurredAt: expect.any(Date) },
      { kind: 'refund', reference: refundId, providerId: sim.trades.get(paymentId)!.trade_no, amount: 800, fee: 5, occurredAt: expect.any(Date) },
    ]);
    sim.withholdBill(day);
    expect(await bills.dailyBill(day)).toBeNull();
    sim.withholdBill(day, false);
  });

  it('reads a transfer paid out from the account-flow bill, by its out_biz_no', async () => {
    const withdrawalId = uuidv7();
    expect(await payouts.send({ withdrawalId, amount: 12_300, payeeAccount: 'payee@example.com', payeeName: '张三' })).toMatchObject({ outcome: 'paid' });
    const transfer = sim.transfers.get(withdrawalId)!;
    const lines = await bills.dailyBill(transfer.trans_date.slice(0, 10));
    expect(lines?.filter((l) => l.reference === withdrawalId)).toEqual([
      { kind: 'transfer', reference: withdrawalId, providerId: transfer.order_id, amount: 12_300, fee: 0, occurredAt: expect.any(Date) },
    ]);
    sim.dropBillLine(transfer.trans_date.slice(0, 10), withdrawalId);
    expect((await bills.dailyBill(transfer.trans_date.slice(0, 10)))?.some((l) => l.reference === withdrawalId)).toBe(false);
  });
});
