import { api, eventually, newAdmin, outboxEvents, startWechatPaySimulator, type Caller, type Stack, type WechatPaySimulator } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { smsUser, startRecharge, startStackWith, wechatPayEnv } from './support';

const REAL_NAME = '王五';
const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';
const hex = (id: string) => id.replace(/-/g, '');

describe('withdrawals paid out through WeChat Pay merchant transfers (batches_transfer against the simulator)', () => {
  let sim: WechatPaySimulator;
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let admin: Caller;

  beforeAll(async () => {
    sim = await startWechatPaySimulator();
    stack = await startStackWith(sim, ['identity', 'admin', 'wallet'], { ...wechatPayEnv(sim), WITHDRAWAL_CHECK_MS: '200' });
    // withdrawals are finance's (ADR 0033)
    admin = await newAdmin(stack, ['finance']);
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  async function owner(funds: number) {
    const p = await smsUser(stack, { realName: REAL_NAME });
    const started = await startRecharge(stack, p, funds);
    expect(await sim.pay(hex(started.id))).toEqual({ status: 204, text: '' });
    return p;
  }

  const available = async (p: { token: string }) => (await client.get('/api/wallet/balance', p.token)).body.available as number;
  const ask = (p: { token: string }, amount: number) =>
    client.post('/api/wallet/withdrawals', { amount, channel: 'wechatpay', payee_account: OPENID, payee_name: REAL_NAME }, p.token);
  const statusOf = async (p: { id: string }, id: string) =>
    (await client.get(`/api/admin/withdrawals?user_id=${p.id}`, admin.token)).body.items.find((i: { id: string }) => i.id === id);

  it('pays an approved withdrawal once, the payee name travelling encrypted for the platform key', async () => {
    sim.setTransferMode('success');
    const p = await owner(8_000);
    const w = (await ask(p, 5_000)).body;
    expect((await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token)).body.status).toMatch(/processing|paid/);
    await eventually(
      () => statusOf(p, w.id),
      (item) => item.status === 'paid',
    );
    expect(sim.transfers.get(hex(w.id))).toMatchObject({ openid: OPENID, user_name: REAL_NAME, transfer_amount: 5_000 });
    expect(sim.transferRequests.get(hex(w.id))).toBe(1);
    const [row] = await stack.services.wallet!.ctx.db.query(`SELECT to_jsonb(w)::text AS row FROM withdrawals w WHERE id = $1`, [w.id]);
    expect(row.row).not.toContain(OPENID);
    expect(row.row).not.toContain(REAL_NAME);
    expect(await available(p)).toBe(3_000);
    expect((await outboxEvents(stack, 'wallet', 'withdrawal.paid')).filter((e) => e.data.id === w.id)).toHaveLength(1);
  });

  it('fails a transfer WeChat Pay refuses and gives the hold back', async () => {
    sim.setTransferMode('fail', 'NAME_NOT_CORRECT');
    const p = await owner(2_000);
    const w = (await ask(p, 2_000)).body;
    await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token);
    const failed = await eventually(
      () => statusOf(p, w.id),
      (item) => item.status === 'failed',
    );
    expect(failed.reason).toBe('NAME_NOT_CORRECT');
    expect(await available(p)).toBe(2_000);
    sim.setTransferMode('success');
  });

  it('asks about a transfer whose answer was lost until it is paid, never sending it twice', async () => {
    sim.setTransferMode('unknown');
    const p = await owner(3_000);
    const w = (await ask(p, 3_000)).body;
    expect((await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token)).body.status).toBe('processing');
    sim.setTransferMode('success');
    await eventually(
      () => statusOf(p, w.id),
      (item) => item.status === 'paid',
    );
    expect(sim.transferRequests.get(hex(w.id))).toBe(1);
    expect(await available(p)).toBe(0);
    expect(await findLedgerDifferences(stack.services.wallet!.ctx.db)).toEqual([]);
  });
});
