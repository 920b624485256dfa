import { api, eventually, outboxEvents, startWechatPaySimulator, type Caller, type Stack, type WechatFault, type WechatPaySimulator } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { smsUser, startProviderStack, startRecharge, WECHATPAY_TRANSFER_NOTIFY_URL, wechatPayEnv, withFinance } from './support';

const REAL_NAME = '王五';
const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';
const hex = (id: string) => id.replace(/-/g, '');

describe('withdrawals paid out through WeChat Pay merchant transfers (transfer-bills against the simulator)', () => {
  let sim: WechatPaySimulator, stack: Stack, client: ReturnType<typeof api>, admin: Caller;
  beforeAll(async () => {
    // withdrawals are finance's (ADR 0033)
    const started = startProviderStack(startWechatPaySimulator(), ['identity', 'admin', 'wallet'], (s) => ({ ...wechatPayEnv(s), WITHDRAWAL_CHECK_MS: '200' }));
    ({ sim, stack, client, finance: admin } = await withFinance(started));
  });
  afterAll(() => stack?.stop());
  afterEach(() => sim.setTransferMode('success'));

  async function owner(funds: number) {
    const p = await smsUser(stack, { realName: REAL_NAME });
    const started = await startRecharge(stack, p, funds);
    expect(await sim.pay(hex(started.id))).toEqual({ status: 204, text: '' });
    return p;
  }

  const available = async (p: { token: string }) => (await client.get('/api/wallet/balance', p.token)).body.available as number;
  const statusOf = async (p: { id: string }, id: string) =>
    (await client.get(`/api/admin/withdrawals?user_id=${p.id}`, admin.token)).body.items.find((i: { id: string }) => i.id === id);
  const paidOut = (id: string) => sim.paid.filter((m) => m.kind === 'transfer' && m.no === hex(id));

  /** A payee with `amount` on the wallet asks for all of it and finance approves. */
  async function approvedWithdrawal(amount: number) {
    const p = await owner(amount);
    const w = (await client.post('/api/wallet/withdrawals', { amount, channel: 'wechatpay', payee_account: OPENID, payee_name: REAL_NAME }, p.token)).body;
    const approved = await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token);
    expect(approved.status).toBe(200);
    return { p, w: w as { id: string } };
  }

  const settled = (p: { id: string }, id: string) =>
    eventually(
      () => statusOf(p, id),
      (item) => item.status === 'paid' || item.status === 'failed',
    );

  it('pays an approved withdrawal once under the configured scene, telling the payee what the money is', async () => {
    const { p, w } = await approvedWithdrawal(5_000);
    expect((await settled(p, w.id)).status).toBe('paid');
    expect(sim.transfers.get(hex(w.id))).toMatchObject({
      openid: OPENID,
      transfer_amount: 5_000,
      transfer_scene_id: '1005',
      user_recv_perception: '劳务报酬',
      transfer_scene_report_infos: [expect.objectContaining({ info_type: '岗位类型' }), expect.objectContaining({ info_type: '报酬说明' })],
      notify_url: WECHATPAY_TRANSFER_NOTIFY_URL,
      // below 2,000 yuan the name is not asked for
      user_name: null,
    });
    expect(paidOut(w.id)).toEqual([{ kind: 'transfer', no: hex(w.id), amount: 5_000 }]);
    const [row] = await stack.services.wallet!.ctx.db.query(`SELECT to_jsonb(w)::text AS row FROM withdrawals w WHERE id = $1`, [w.id]);
    expect(row.row).not.toContain(OPENID);
    expect(row.row).not.toContain(REAL_NAME);
    expect(await available(p)).toBe(0);
    expect((await outboxEvents(stack, 'wallet', 'withdrawal.paid')).filter((e) => e.data.id === w.id)).toHaveLength(1);
  });

  it('sends the payee name from 2,000 yuan, encrypted for the WeChat Pay public key', async () => {
    const { p, w } = await approvedWithdrawal(200_000);
    expect((await settled(p, w.id)).status).toBe('paid');
    expect(sim.transfers.get(hex(w.id))).toMatchObject({ user_name: REAL_NAME, transfer_amount: 200_000 });
    expect(paidOut(w.id)).toHaveLength(1);
  });

  it('fails a transfer WeChat Pay ends in FAIL and gives the hold back', async () => {
    sim.setTransferMode('fail', 'NAME_NOT_CORRECT');
    const { p, w } = await approvedWithdrawal(2_000);
    const failed = await settled(p, w.id);
    expect([failed.status, failed.reason]).toEqual(['failed', 'NAME_NOT_CORRECT']);
    expect(await available(p)).toBe(2_000);
    expect(paidOut(w.id)).toEqual([]);
  });

  it('fails a request refused as one that can never pass (PARAM_ERROR, and no transfer under the number) and gives the hold back', async () => {
    sim.queueFaults('PARAM_ERROR');
    const { p, w } = await approvedWithdrawal(3_000);
    const failed = await settled(p, w.id);
    expect([failed.status, failed.reason]).toEqual(['failed', 'PARAM_ERROR']);
    expect(await available(p)).toBe(3_000);
    expect(paidOut(w.id)).toEqual([]);
  });

  it.each<WechatFault>(['SYSTEM_ERROR', 'NOT_ENOUGH', 'lost', 'duplicate'])(
    'pays a withdrawal whose first answer was %s exactly once, under the same number, never releasing the hold',
    async (fault) => {
      sim.queueFaults(fault);
      const { p, w } = await approvedWithdrawal(3_000);
      expect(await available(p)).toBe(0);
      expect((await settled(p, w.id)).status).toBe('paid');
      expect(paidOut(w.id)).toEqual([{ kind: 'transfer', no: hex(w.id), amount: 3_000 }]);
      expect([...sim.transfers.keys()].filter((no) => no === hex(w.id))).toHaveLength(1);
      expect(await available(p)).toBe(0);
      expect(await findLedgerDifferences(stack.services.wallet!.ctx.db)).toEqual([]);
    },
  );

  it('keeps asking while the payee has not confirmed, releasing nothing; the payee’s confirmation callback has it asked and paid at once', async () => {
    sim.setTransferMode('confirm');
    const { p, w } = await approvedWithdrawal(4_000);
    await eventually(
      async () => sim.transferQueries.get(hex(w.id)) ?? 0,
      (asked) => asked >= 2,
    );
    expect(sim.transfers.get(hex(w.id))!.state).toBe('WAIT_USER_CONFIRM');
    expect((await statusOf(p, w.id)).status).toBe('processing');
    expect(await available(p)).toBe(0);
    expect(paidOut(w.id)).toEqual([]);
    expect(await sim.confirmTransfer(hex(w.id))).toEqual({ status: 204, text: '' });
    // the callback itself asked WeChat Pay and applied the answer
    expect((await statusOf(p, w.id)).status).toBe('paid');
    expect(paidOut(w.id)).toHaveLength(1);
  });

  it('refuses a transfer callback signed with an unknown serial, altered, or about no withdrawal of ours; none of them decides anything', async () => {
    sim.setTransferMode('confirm');
    const { p, w } = await approvedWithdrawal(1_500);
    await eventually(
      async () => sim.transfers.get(hex(w.id))?.state,
      (state) => state === 'WAIT_USER_CONFIRM',
    );
    sim.signWith('certificate');
    const unknownSerial = sim.transferCallbackFor(hex(w.id), { state: 'SUCCESS' });
    sim.signWith('publicKey');
    const genuine = sim.transferCallbackFor(hex(w.id), { state: 'SUCCESS' });
    const altered = { ...genuine, body: genuine.body.replace('"MCHTRANSFER.BILL.FINISHED"', '"MCHTRANSFER.BILL.FINISHED" ') };
    for (const callback of [unknownSerial, altered, sim.transferCallbackFor(hex(w.id), { out_bill_no: 'NOTOURS1234' })]) {
      const res = await sim.sendCallback(WECHATPAY_TRANSFER_NOTIFY_URL, callback);
      expect([res.status, JSON.parse(res.text).code]).toEqual([400, 'FAIL']);
    }
    // a genuine callback claiming SUCCESS is only a reason to ask: WeChat Pay still says WAIT_USER_CONFIRM
    expect((await sim.sendCallback(WECHATPAY_TRANSFER_NOTIFY_URL, genuine)).status).toBe(204);
    expect((await statusOf(p, w.id)).status).toBe('processing');
    expect(await available(p)).toBe(0);
    expect(paidOut(w.id)).toEqual([]);
  });
});
