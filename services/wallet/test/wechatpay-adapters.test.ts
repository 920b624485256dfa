import { randomUUID } from 'node:crypto';
import { startWechatPaySimulator, type WechatPaySimulator } from '@market/testkit';
import { tradeBillLines } from '../src/adapters/wechatpay-bill-csv';
import { billYuanToFen } from '../src/domain/yuan';
import { WechatPayBills } from '../src/adapters/wechatpay-bills';
import { WechatPayGateway } from '../src/adapters/wechatpay-gateway';
import { WechatPayPayouts } from '../src/adapters/wechatpay-payouts';
import { WechatPayRefunds } from '../src/adapters/wechatpay-refunds';
import { WECHATPAY_NOTIFY_URL, wechatPayClientFor } from './support';

const hex = (id: string) => id.replace(/-/g, '');
/** Today in Asia/Shanghai, the day WeChat Pay's bills are cut by. */
const chinaDay = () => new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);

describe('the WeChat Pay refund, transfer-cancel and bill adapters (against the simulator, public-key mode)', () => {
  let sim: WechatPaySimulator;
  let gateway: WechatPayGateway;
  let refunds: WechatPayRefunds;
  let payouts: WechatPayPayouts;
  let bills: WechatPayBills;

  beforeAll(async () => {
    sim = await startWechatPaySimulator();
    const client = wechatPayClientFor(sim);
    gateway = new WechatPayGateway(client, WECHATPAY_NOTIFY_URL);
    // no callbacks here: outcomes are asked for
    refunds = new WechatPayRefunds(client, null);
    payouts = new WechatPayPayouts(client, {
      sceneId: '1005',
      perception: '劳务报酬',
      reportInfos: [{ info_type: '岗位类型', info_content: '账号出租方' }, { info_type: '报酬说明', info_content: '提现' }],
      notifyUrl: null,
    });
    bills = new WechatPayBills(client);
  });
  afterAll(() => sim?.stop());
  afterEach(() => {
    sim.setRefundStatus('SUCCESS');
    sim.setTransferMode('success');
    sim.billsReady(true);
  });

  /** A recharge paid at WeChat Pay (its callback not delivered: only the provider's side matters here). */
  async function paidPayment(amount: number) {
    const paymentId = randomUUID();
    await gateway.createPayment({ paymentId, amount, expiresAt: new Date(Date.now() + 600_000) });
    await sim.pay(hex(paymentId), { deliver: false });
    return paymentId;
  }

  const refundOf = (paymentId: string, refundId: string, amount: number, total = amount) =>
    refunds.refund({ refundId, paymentId, gatewayTxnId: null, refundAmount: amount, paymentAmount: total, reason: '租赁取消' });
  const refundedOnce = (refundId: string) => sim.paid.filter((m) => m.kind === 'refund' && m.no === hex(refundId));

  it('refunds a payment: accepted as processing (unknown), then refunded when asked', async () => {
    const paymentId = await paidPayment(3_000);
    const refundId = randomUUID();
    expect(await refundOf(paymentId, refundId, 1_000, 3_000)).toEqual({ outcome: 'unknown', detail: 'PROCESSING' });
    expect(await refunds.query({ refundId, paymentId })).toMatchObject({ outcome: 'refunded', providerRefundId: sim.refunds.get(hex(refundId))!.refund_id });
    expect(sim.refunds.get(hex(refundId))).toMatchObject({ out_trade_no: hex(paymentId), refund: 1_000, total: 3_000 });
    expect(refundedOnce(refundId)).toHaveLength(1);
    expect(await refunds.query({ refundId: randomUUID(), paymentId })).toEqual({ outcome: 'not_found' });
  });

  it.each(['SYSTEM_ERROR', 'NOT_ENOUGH', 'lost', 'duplicate'] as const)('refunds exactly once when the first answer was %s and the refund is sent again', async (fault) => {
    const paymentId = await paidPayment(2_000);
    const refundId = randomUUID();
    sim.queueFaults(fault);
    const first = await refundOf(paymentId, refundId, 2_000);
    expect(first.outcome === 'unknown' || first.outcome === 'refunded').toBe(true);
    await refundOf(paymentId, refundId, 2_000);
    expect(await refunds.query({ refundId, paymentId })).toMatchObject({ outcome: 'refunded' });
    expect(refundedOnce(refundId)).toEqual([{ kind: 'refund', no: hex(refundId), amount: 2_000 }]);
  });

  it('leaves a refund whose answer never came unknown, and refunds it once when sent again', async () => {
    const paymentId = await paidPayment(1_200);
    const refundId = randomUUID();
    sim.queueFaults('stall');
    const impatient = new WechatPayRefunds(wechatPayClientFor(sim, 'publicKey', { timeoutMs: 300 }), null);
    expect(await impatient.refund({ refundId, paymentId, gatewayTxnId: null, refundAmount: 1_200, paymentAmount: 1_200, reason: '租赁取消' })).toEqual({
      outcome: 'unknown',
      detail: 'no answer',
    });
    await refundOf(paymentId, refundId, 1_200);
    expect(await refunds.query({ refundId, paymentId })).toMatchObject({ outcome: 'refunded' });
    expect(refundedOnce(refundId)).toHaveLength(1);
  });

  it('takes only confirmed-final refusals as failed: more than was paid, no such payment; a CLOSED refund; never ABNORMAL', async () => {
    const paymentId = await paidPayment(1_000);
    expect(await refundOf(paymentId, randomUUID(), 1_001, 1_000)).toEqual({ outcome: 'failed', reason: 'INVALID_REQUEST' });
    expect(await refundOf(randomUUID(), randomUUID(), 100)).toEqual({ outcome: 'failed', reason: 'RESOURCE_NOT_EXISTS' });
    sim.setRefundStatus('ABNORMAL');
    const abnormal = randomUUID();
    expect(await refundOf(paymentId, abnormal, 300, 1_000)).toEqual({ outcome: 'unknown', detail: 'ABNORMAL' });
    expect(await refunds.query({ refundId: abnormal, paymentId })).toEqual({ outcome: 'unknown', detail: 'ABNORMAL' });
    sim.setRefundStatus('PROCESSING');
    const closed = randomUUID();
    await refundOf(paymentId, closed, 300, 1_000);
    await sim.finishRefund(hex(closed), 'CLOSED');
    expect(await refunds.query({ refundId: closed, paymentId })).toEqual({ outcome: 'failed', reason: 'CLOSED' });
    expect(refundedOnce(closed)).toEqual([]);
  });

  it('answers a transfer awaiting the payee with its package_info, and cancels it: then it is failed, nothing paid', async () => {
    sim.setTransferMode('confirm');
    const withdrawalId = randomUUID();
    const sent = await payouts.send({ withdrawalId, amount: 1_000, payeeAccount: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', payeeName: '王五' });
    expect(sent).toEqual({ outcome: 'awaiting_payee', confirmation: sim.transfers.get(hex(withdrawalId))!.package_info, providerOrderId: expect.any(String) });
    expect(await payouts.query(withdrawalId)).toMatchObject({ outcome: 'awaiting_payee' });
    await payouts.cancel(withdrawalId);
    expect(await payouts.query(withdrawalId)).toEqual({ outcome: 'failed', reason: 'CANCELLED' });
    expect(sim.paid.filter((m) => m.no === hex(withdrawalId))).toEqual([]);
    expect(await payouts.query(randomUUID())).toEqual({ outcome: 'not_found' });
  });

  it('reads the day’s trade and fund-flow bills: payments, refunds and transfers by our ids, hash checked', async () => {
    const paymentId = await paidPayment(4_321);
    const refundId = randomUUID();
    await refundOf(paymentId, refundId, 1_000, 4_321);
    const withdrawalId = randomUUID();
    await payouts.send({ withdrawalId, amount: 2_500, payeeAccount: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', payeeName: '王五' });
    const lines = (await bills.dailyBill(chinaDay()))!;
    expect(lines.find((l) => l.reference === paymentId)).toMatchObject({ kind: 'payment', amount: 4_321, fee: 26, providerId: sim.orders.get(hex(paymentId))!.transaction_id });
    expect(lines.find((l) => l.reference === refundId)).toMatchObject({ kind: 'refund', amount: 1_000, fee: 6, providerId: sim.refunds.get(hex(refundId))!.refund_id });
    expect(lines.find((l) => l.reference === withdrawalId)).toMatchObject({ kind: 'transfer', amount: 2_500, fee: 0 });
    expect(lines.every((l) => l.occurredAt instanceof Date && !Number.isNaN(l.occurredAt.getTime()))).toBe(true);
  });

  it('has no bill for a day without business, nor while WeChat Pay is still making it', async () => {
    expect(await bills.dailyBill('2020-01-01')).toBeNull();
    sim.billsReady(false);
    expect(await bills.dailyBill(chinaDay())).toBeNull();
  });
});

describe('reading WeChat Pay bill cells', () => {
  it('turns yuan to fen exactly, fees rounded half up', () => {
    expect(['43.21', '0.26000', '0.25926', '0.00500', '0.00499', '-0.06000', '12'].map(billYuanToFen)).toEqual([4_321, 26, 26, 1, 0, 6, 1_200]);
    for (const bad of ['', 'abc', '1.234567', undefined]) expect(billYuanToFen(bad)).toBeNull();
  });

  it('leaves out lines whose numbers are not ours and an empty file', () => {
    expect(tradeBillLines(Buffer.from(''))).toEqual([]);
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const csv = Buffer.concat([
      bom,
      Buffer.from('交易时间,商户订单号,交易状态,订单金额,手续费,微信订单号\r\n`2026-11-27 10:00:00,`ORDER-OF-ANOTHER-SYSTEM,`SUCCESS,`1.00,`0.01000,`4200\r\n总交易单数\r\n`1\r\n'),
    ]);
    expect(tradeBillLines(csv)).toEqual([]);
  });
});
