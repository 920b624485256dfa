import { api, eventually, newAdmin, outboxEvents, startAlipaySimulator, type AlipaySimulator, type Caller, type Stack } from '@market/testkit';
import { createLogger } from '@market/shared/logging';
import { AlipayClient } from '../src/adapters/alipay-gateway';
import { AlipayPayouts } from '../src/adapters/alipay-payouts';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { ALIPAY_NOTIFY_URL, alipayEnv, callbackFor, notify, smsUser, startProviderStack, startRecharge, withFinance, type SmsUser } from './support';

const REAL_NAME = '王五';
const CHECK_MS = 200;
const CHECK_MAX_MS = 1_600;

describe('Alipay payouts in certificate mode: unknown outcomes asked about until final, never paid twice', () => {
  let sim: AlipaySimulator, stack: Stack, client: ReturnType<typeof api>, finance: Caller;
  beforeAll(async () => {
    const env = (s: AlipaySimulator) => ({
      ...alipayEnv(s),
      WITHDRAWAL_CHECK_MS: String(CHECK_MS),
      WITHDRAWAL_CHECK_MAX_MS: String(CHECK_MAX_MS),
      WITHDRAWAL_UNKNOWN_ALERT_MS: '1500',
      WITHDRAWAL_REVERSAL_CHECK_MS: '2500',
    });
    ({ sim, stack, client, finance } = await withFinance(startProviderStack(startAlipaySimulator({ certificateMode: true }), ['identity', 'admin', 'wallet'], env)));
  });
  afterAll(() => stack?.stop());
  afterEach(() => {
    sim.setTransferMode('success');
    sim.setQueriesFailing(false);
  });

  const walletDb = () => stack.services.wallet!.ctx.db;

  async function person(funds: number): Promise<SmsUser> {
    const p = await smsUser(stack, { realName: REAL_NAME });
    const started = await startRecharge(stack, p, funds);
    expect(await sim.pay(started.id)).toEqual({ status: 200, text: 'success' });
    return p;
  }

  const available = async (p: SmsUser) => (await client.get('/api/wallet/balance', p.token)).body.available as number;
  const own = async (p: SmsUser) => (await client.get('/api/wallet/withdrawals', p.token)).body.items[0];
  /** A withdrawal of all of `p`'s `amount`, approved by finance; answers the approval. */
  async function withdrawAndApprove(p: SmsUser, amount: number) {
    const w = await client.post('/api/wallet/withdrawals', { amount, channel: 'alipay', payee_account: 'payee@example.com', payee_name: REAL_NAME }, p.token);
    expect(w.status).toBe(201);
    const approved = await client.post(`/api/admin/withdrawals/${w.body.id}/approve`, {}, finance.token);
    expect(approved.status).toBe(200);
    return approved.body as { id: string; status: string };
  }
  const ledgerOf = async (id: string) =>
    (await walletDb().query(`SELECT biz_type, amount::int AS amount FROM transfers WHERE withdrawal_id = $1 ORDER BY id`, [id])).map(
      (t: { biz_type: string; amount: number }) => [t.biz_type, t.amount],
    );
  const eventsOf = async (type: 'withdrawal.paid' | 'withdrawal.failed' | 'withdrawal.reversed' | 'audit.recorded' | 'ops.alert', id: string) =>
    (await outboxEvents(stack, 'wallet', type)).filter((e) => (e.data.id ?? e.data.biz_id ?? e.data.subject_id) === id);
  /** Stops the periodic looks at one withdrawal, so a test decides what happens to it next. */
  const holdLooks = (id: string) => walletDb().query(`UPDATE withdrawals SET next_check_at = now() + interval '1 hour' WHERE id = $1`, [id]);

  it.each([
    ['40004 SYSTEM_ERROR', 'system_error'],
    ['a lost answer (504)', 'unknown'],
    ['PAYMENT_INFO_INCONSISTENCY (the number exists, details differ)', 'inconsistent'],
  ] as const)('after %s the transfer is asked about, found paid, and paid exactly once', async (_, mode) => {
    sim.setTransferMode(mode);
    const owner = await person(3_000);
    const approved = await withdrawAndApprove(owner, 3_000);
    expect(approved.status).toBe('processing');
    const paid = await eventually(() => own(owner), (w) => w.status === 'paid');
    expect(paid).toMatchObject({ id: approved.id, paid_at: expect.any(String), reason: null });
    expect(sim.transferRequests.get(approved.id)).toBe(1);
    expect(sim.transfers.get(approved.id)).toMatchObject({ status: 'SUCCESS', trans_amount: '30.00', payee_identity: 'payee@example.com' });
    // the hold left once, to the payout account; nothing came back
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 3_000],
      ['withdrawal_payout', 3_000],
    ]);
    expect(await available(owner)).toBe(0);
    expect(await eventsOf('withdrawal.paid', approved.id)).toHaveLength(1);
  });

  it('keeps the hold through refusals that are not final (PAYER_BALANCE_NOT_ENOUGH), sends again under the same number, pays once', async () => {
    sim.setTransferMode('refuse', 'PAYER_BALANCE_NOT_ENOUGH');
    const owner = await person(2_000);
    const approved = await withdrawAndApprove(owner, 2_000);
    expect(approved.status).toBe('processing');
    // asked (not found) and sent again, each time refused: still processing, the amount still held
    await eventually(async () => sim.transferRequests.get(approved.id) ?? 0, (n) => n >= 2);
    expect(await own(owner)).toMatchObject({ status: 'processing' });
    expect(await available(owner)).toBe(0);
    expect(await ledgerOf(approved.id)).toEqual([['withdrawal', 2_000]]);
    sim.setTransferMode('success');
    await eventually(() => own(owner), (w) => w.status === 'paid');
    const calls = sim.transferCalls.filter((c) => c.outBizNo === approved.id && c.method === 'alipay.fund.trans.uni.transfer');
    expect(calls.length).toBe(sim.transferRequests.get(approved.id));
    expect(sim.transfers.get(approved.id)).toMatchObject({ status: 'SUCCESS', payee_identity: 'payee@example.com', payee_name: REAL_NAME, trans_amount: '20.00' });
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 2_000],
      ['withdrawal_payout', 2_000],
    ]);
  });

  it('a final refusal (PAYEE_USER_INFO_ERROR) fails the withdrawal and releases the hold at once', async () => {
    sim.setTransferMode('refuse', 'PAYEE_USER_INFO_ERROR');
    const owner = await person(1_500);
    const approved = await withdrawAndApprove(owner, 1_500);
    const failed = await eventually(() => own(owner), (w) => w.status === 'failed');
    expect(failed).toMatchObject({ id: approved.id, reason: 'PAYEE_USER_INFO_ERROR' });
    expect(sim.transferRequests.get(approved.id)).toBe(1);
    expect(await available(owner)).toBe(1_500);
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 1_500],
      ['withdrawal_refund', 1_500],
    ]);
  });

  it('REFUND before the payout was known paid fails the withdrawal: the money never left, the hold comes back', async () => {
    sim.setTransferMode('returned');
    const owner = await person(2_500);
    const approved = await withdrawAndApprove(owner, 2_500);
    expect(approved.status).toBe('processing');
    const failed = await eventually(() => own(owner), (w) => w.status === 'failed');
    expect(failed.reason).toBe('PAYEE_ACCOUNT_STATUS_ERROR');
    expect(await available(owner)).toBe(2_500);
    expect(sim.transferRequests.get(approved.id)).toBe(1);
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 2_500],
      ['withdrawal_refund', 2_500],
    ]);
    expect(await eventsOf('withdrawal.failed', approved.id)).toHaveLength(1);
  });

  it('REFUND after the payout was paid: the look for a return moves the amount back to the user, reversed, audited and announced', async () => {
    const owner = await person(4_000);
    const approved = await withdrawAndApprove(owner, 4_000);
    // paid by the approval, or by the periodic look when it claimed the withdrawal first (it answers processing then)
    expect(['paid', 'processing']).toContain(approved.status);
    await eventually(() => own(owner), (w) => w.status === 'paid');
    sim.refundTransfer(approved.id);
    const reversed = await eventually(() => own(owner), (w) => w.status === 'reversed');
    expect(reversed).toMatchObject({ id: approved.id, reason: 'PAYEE_ACCOUNT_STATUS_ERROR', paid_at: expect.any(String) });
    expect(await available(owner)).toBe(4_000);
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 4_000],
      ['withdrawal_payout', 4_000],
      ['withdrawal_reversal', 4_000],
    ]);
    expect(await eventsOf('withdrawal.reversed', approved.id)).toHaveLength(1);
    const audits = await eventsOf('audit.recorded', approved.id);
    expect(audits.filter((a) => a.data.action === 'withdrawal.reverse').map((a) => [a.data.actor_type, a.data.detail.reason])).toEqual([['system', 'PAYEE_ACCOUNT_STATUS_ERROR']]);
    expect(sim.transferRequests.get(approved.id)).toBe(1);
    expect(await findLedgerDifferences(walletDb())).toEqual([]);
  });

  it('asks about an unknown outcome with backoff, and alerts the back office once when it stays unknown', async () => {
    // Alipay keeps failing and never makes the transfer: unknown on every look
    sim.setTransferMode('refuse', 'SYSTEM_ERROR');
    const owner = await person(1_200);
    const approved = await withdrawAndApprove(owner, 1_200);
    const queries = () => sim.transferCalls.filter((c) => c.outBizNo === approved.id && c.method === 'alipay.fund.trans.common.query').map((c) => c.at);
    await eventually(async () => queries().length, (n) => n >= 4, 20_000);
    // each look waits as long again as the outcome has been unknown: 200 ms, then at least 200, 400, 800 … up to 1.6 s
    const at = queries();
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps[1]).toBeGreaterThanOrEqual(CHECK_MS * 2 - 50);
    expect(gaps[2]).toBeGreaterThanOrEqual(CHECK_MS * 4 - 50);
    const alerts = await eventually(() => eventsOf('ops.alert', approved.id), (list) => list.length >= 1);
    expect(alerts[0]!.data).toMatchObject({
      alert: 'WITHDRAWAL_UNKNOWN',
      severity: 'warning',
      service: 'wallet',
      subject_type: 'withdrawal',
      detail: expect.objectContaining({ withdrawal_id: approved.id, channel: 'alipay', amount: 1_200, user_id: owner.id }),
    });
    // further looks raise no second alert
    const looked = queries().length;
    await eventually(async () => queries().length, (n) => n > looked, 10_000);
    expect(await eventsOf('ops.alert', approved.id)).toHaveLength(1);
    expect(await own(owner)).toMatchObject({ status: 'processing' });
    expect(await available(owner)).toBe(0);
  });

  it('finance resolves an unknown transfer as failed on evidence, after the provider says it has none; audited', async () => {
    sim.setTransferMode('refuse', 'SYSTEM_ERROR');
    const owner = await person(1_800);
    const approved = await withdrawAndApprove(owner, 1_800);
    await holdLooks(approved.id);
    const body = { outcome: 'failed', evidence: { provider_transfer_id: 'none', bill_line: '2026-11-27 账单无此 out_biz_no' }, reason: '支付宝无此转账' };
    // refused for input, another role, and nothing changes
    expect((await client.post(`/api/admin/withdrawals/${approved.id}/resolve`, { outcome: 'failed' }, finance.token)).status).toBe(400);
    const support = await newAdmin(stack, ['customer_service']);
    expect((await client.post(`/api/admin/withdrawals/${approved.id}/resolve`, body, support.token)).status).toBe(403);
    // the provider cannot say: no failure on a guess
    sim.setQueriesFailing(true);
    const unheard = await client.post(`/api/admin/withdrawals/${approved.id}/resolve`, body, finance.token);
    expect([unheard.status, unheard.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    expect(await own(owner)).toMatchObject({ status: 'processing' });
    sim.setQueriesFailing(false);

    const resolved = await client.post(`/api/admin/withdrawals/${approved.id}/resolve`, body, finance.token);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'failed', reason: '支付宝无此转账', payee_confirmation: null });
    expect(await available(owner)).toBe(1_800);
    const audits = (await eventsOf('audit.recorded', approved.id)).filter((a) => a.data.action === 'withdrawal.resolve');
    expect(audits.map((a) => [a.data.actor_id, a.data.detail])).toEqual([
      [
        finance.id,
        { amount: 1_800, user_id: owner.id, outcome: 'failed', provider_transfer_id: 'none', bill_line: '2026-11-27 账单无此 out_biz_no', reason: '支付宝无此转账' },
      ],
    ]);
    expect(await eventsOf('withdrawal.failed', approved.id)).toHaveLength(1);
    // only a withdrawal being sent is resolved
    const again = await client.post(`/api/admin/withdrawals/${approved.id}/resolve`, body, finance.token);
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE']);
  });

  it('refuses to resolve as failed a transfer the provider says it paid, and marks it paid instead', async () => {
    sim.setTransferMode('unknown');
    sim.setQueriesFailing(true);
    const owner = await person(2_200);
    const approved = await withdrawAndApprove(owner, 2_200);
    await holdLooks(approved.id);
    sim.setQueriesFailing(false);
    const refused = await client.post(
      `/api/admin/withdrawals/${approved.id}/resolve`,
      { outcome: 'failed', evidence: { provider_transfer_id: 'none', bill_line: 'not in yesterday’s bill' } },
      finance.token,
    );
    expect([refused.status, refused.body.code]).toEqual([409, 'PROVIDER_SAYS_PAID']);
    expect(await own(owner)).toMatchObject({ status: 'paid' });
    expect(await available(owner)).toBe(0);
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 2_200],
      ['withdrawal_payout', 2_200],
    ]);
    expect((await eventsOf('audit.recorded', approved.id)).filter((a) => a.data.action === 'withdrawal.resolve')).toEqual([]);
  });

  it('finance resolves an unknown transfer as paid on the bill line: paid out once, audited with the evidence', async () => {
    sim.setTransferMode('refuse', 'SYSTEM_ERROR');
    const owner = await person(1_600);
    const approved = await withdrawAndApprove(owner, 1_600);
    await holdLooks(approved.id);
    const evidence = { provider_transfer_id: '20261127110070001506', bill_line: '2026-11-27 10:00 单笔转账 16.00 成功' };
    const resolved = await client.post(`/api/admin/withdrawals/${approved.id}/resolve`, { outcome: 'paid', evidence }, finance.token);
    expect(resolved.body).toMatchObject({ status: 'paid', paid_at: expect.any(String) });
    expect(await ledgerOf(approved.id)).toEqual([
      ['withdrawal', 1_600],
      ['withdrawal_payout', 1_600],
    ]);
    const [row] = await walletDb().query(`SELECT provider_order_id FROM withdrawals WHERE id = $1`, [approved.id]);
    expect(row.provider_order_id).toBe(evidence.provider_transfer_id);
    const audits = (await eventsOf('audit.recorded', approved.id)).filter((a) => a.data.action === 'withdrawal.resolve');
    expect(audits.map((a) => a.data.detail)).toEqual([{ amount: 1_600, user_id: owner.id, outcome: 'paid', ...evidence }]);
  });

  it('a request signed without the certificate serial numbers is refused by Alipay: nothing is transferred', async () => {
    const log = createLogger('wallet-test', 'silent');
    const publicKeyMode = new AlipayPayouts(
      new AlipayClient(
        {
          appId: sim.appId,
          privateKey: sim.appPrivateKey,
          verification: { mode: 'public_key', alipayPublicKey: sim.alipayPublicKey },
          gateway: sim.gatewayUrl,
          notifyUrl: ALIPAY_NOTIFY_URL,
          timeoutMs: 5_000,
        },
        log,
      ),
    );
    const before = sim.refusedRequests.length;
    const id = '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a99';
    // a refusal that is not on the known-final list is unknown: asked about, never failed on a guess
    expect(await publicKeyMode.send({ withdrawalId: id, amount: 1_000, payeeAccount: 'payee@example.com', payeeName: REAL_NAME })).toMatchObject({ outcome: 'unknown' });
    expect(sim.refusedRequests.slice(before)).toEqual(['alipay.fund.trans.uni.transfer']);
    expect(sim.transferRequests.get(id)).toBeUndefined();
    expect(sim.transfers.get(id)).toBeUndefined();
  });

  it('the paygate callback is not there when the sandbox is off', async () => {
    const user = await smsUser(stack);
    const started = await startRecharge(stack, user, 1_000);
    const res = await notify(stack, callbackFor(started));
    expect(res.status).toBe(404);
    const [payment] = await walletDb().query(`SELECT status FROM payments WHERE id = $1`, [started.id]);
    expect(payment.status).toBe('pending');
  });
});
