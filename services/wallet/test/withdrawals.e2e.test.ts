import { Withdrawal } from '@market/contracts';
import { api, eventually, newAdmin, outboxEvents, startAlipaySimulator, type AlipaySimulator, type Caller, type Stack } from '@market/testkit';
import { SecretBox } from '@market/shared/crypto';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { openPayee, sealPayee } from '../src/persistence/sealed-payee';
import { alipayEnv, smsUser, startProviderStack, startRecharge, withFinance, type SmsUser } from './support';

const REAL_NAME = '张三';

describe('withdrawals on the ledger, paid out through Alipay (alipay.fund.trans.uni.transfer against the simulator)', () => {
  let sim: AlipaySimulator, stack: Stack, client: ReturnType<typeof api>, admin: Caller;
  beforeAll(async () => {
    // payouts need Alipay's certificate mode (ADR 0048); withdrawals are finance's (ADR 0033)
    const started = startProviderStack(startAlipaySimulator({ certificateMode: true }), ['identity', 'admin', 'wallet'], (s) => ({ ...alipayEnv(s), WITHDRAWAL_CHECK_MS: '200' }));
    ({ sim, stack, client, finance: admin } = await withFinance(started));
  });
  afterAll(() => stack?.stop());

  const walletDb = () => stack.services.wallet!.ctx.db;

  async function person(opts: { verified?: boolean; funds?: number } = {}): Promise<SmsUser> {
    const p = await smsUser(stack, { realName: opts.verified === false ? undefined : REAL_NAME });
    if (opts.funds) {
      const started = await startRecharge(stack, p, opts.funds);
      expect(await sim.pay(started.id)).toEqual({ status: 200, text: 'success' });
    }
    return p;
  }

  const available = async (p: SmsUser) => (await client.get('/api/wallet/balance', p.token)).body.available as number;
  const ask = (p: SmsUser, amount: number, more: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    client.post('/api/wallet/withdrawals', { amount, channel: 'alipay', payee_account: 'owner@example.com', payee_name: REAL_NAME, ...more }, p.token, headers);

  /**
   * A withdrawal the approval sent: it answers its outcome (`paid`, `failed`) at once, unless the
   * periodic look (every 200 ms here) claimed it between the approval's commit and its own look;
   * then it answers `processing` and the look settles it a moment later. Either way it ends as
   * `outcome`: the owner's withdrawals in that state, once it is among them.
   */
  async function endsAs(outcome: 'paid' | 'failed', answer: { body: any }, owner: { id: string }) {
    expect([outcome, 'processing']).toContain(answer.body.status);
    return eventually(
      async () => (await client.get(`/api/admin/withdrawals?user_id=${owner.id}&status=${outcome}`, admin.token)).body.items as Array<{ id: string }>,
      (settled) => settled.some((w) => w.id === answer.body.id),
    );
  }
  const paidAfter = async (answer: { body: any }, owner: { id: string }) =>
    (await endsAs('paid', answer, owner)).find((w) => w.id === answer.body.id)!;

  async function setConfig(key: string, value: number) {
    await stack.services.admin!.ctx.db.query(`UPDATE system_configs SET value = $2::jsonb WHERE key = $1`, [key, JSON.stringify(value)]);
  }

  async function eventsOf(type: 'withdrawal.paid' | 'withdrawal.failed' | 'withdrawal.rejected' | 'withdrawal.requested' | 'withdrawal.approved', id: string) {
    return (await outboxEvents(stack, 'wallet', type)).filter((e) => e.data.id === id);
  }

  it('refuses an unverified user, another payee name, too little, more than the balance; nothing is held', async () => {
    const unverified = await person({ verified: false });
    expect((await ask(unverified, 2_000)).body.code).toBe('REALNAME_REQUIRED');
    const owner = await person({ funds: 5_000 });
    const mismatch = await ask(owner, 2_000, { payee_name: '李四' });
    expect([mismatch.status, mismatch.body.code]).toEqual([422, 'PAYEE_NAME_MISMATCH']);
    const small = await ask(owner, 999);
    expect([small.status, small.body.code]).toEqual([422, 'WITHDRAWAL_BELOW_MINIMUM']);
    const tooMuch = await ask(owner, 5_001);
    expect([tooMuch.status, tooMuch.body.code]).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect((await ask(owner, 2_000, { channel: 'paypal' })).status).toBe(400);
    expect(await available(owner)).toBe(5_000);
    expect((await client.get('/api/wallet/withdrawals', owner.token)).body.items).toEqual([]);
    const frozen = await person({ funds: 5_000 });
    const before = (await ask(frozen, 2_000)).body;
    // freezing a user is customer service's, not finance's (ADR 0033)
    const support = await newAdmin(stack, ['customer_service']);
    expect((await client.post(`/api/admin/users/${frozen.id}/freeze`, { reason: '风控' }, support.token)).status).toBe(200);
    // frozen after the request: the back office cannot pay it out
    const approve = await client.post(`/api/admin/withdrawals/${before.id}/approve`, {}, admin.token);
    expect([approve.status, approve.body.code]).toEqual([409, 'USER_FROZEN']);
    expect(sim.transferRequests.get(before.id)).toBeUndefined();
    expect((await client.post(`/api/admin/withdrawals/${before.id}/reject`, { reason: '账户已冻结' }, admin.token)).body.status).toBe('rejected');
    const refused = await ask(frozen, 2_000);
    expect(refused.status).toBe(403);
    expect((await walletDb().query(`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ANY($1::uuid[])`, [[owner.id, frozen.id]]))[0].n).toBe(1);
  });

  it('holds the amount at the request, gives it back on cancel, and keeps one withdrawal per Idempotency-Key', async () => {
    const owner = await person({ funds: 10_000 });
    const headers = { 'idempotency-key': `w-${owner.id}` };
    const first = await ask(owner, 3_000, {}, headers);
    const again = await ask(owner, 3_000, {}, headers);
    expect(first.status).toBe(201);
    const w = Withdrawal.strict().parse(first.body);
    expect(again.body.id).toBe(w.id);
    expect(w).toMatchObject({ status: 'pending_review', amount: 3_000, payee_account_masked: 'own****om', payee_name_masked: '张*' });
    expect(await available(owner)).toBe(7_000);
    expect((await client.get('/api/wallet/withdrawals', owner.token)).body.items.map((i: { id: string }) => i.id)).toEqual([w.id]);
    expect((await client.post(`/api/wallet/withdrawals/${w.id}/cancel`, {}, (await person()).token)).status).toBe(404);
    const cancelled = await client.post(`/api/wallet/withdrawals/${w.id}/cancel`, {}, owner.token);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', finished_at: expect.any(String) });
    expect(await available(owner)).toBe(10_000);
    expect((await client.post(`/api/wallet/withdrawals/${w.id}/cancel`, {}, owner.token)).body.code).toBe('INVALID_STATE');
    const ledger = (await client.get('/api/wallet/ledger', owner.token)).body.items.map((e: { biz_type: string; amount: number }) => [e.biz_type, e.amount]);
    expect(ledger.slice(0, 2)).toEqual([
      ['withdrawal_refund', 3_000],
      ['withdrawal', -3_000],
    ]);
    expect(await eventsOf('withdrawal.requested', w.id)).toHaveLength(1);
  });

  it('a rejection with a reason gives the hold back, audited and announced', async () => {
    const owner = await person({ funds: 4_000 });
    const w = (await ask(owner, 4_000)).body;
    expect(await available(owner)).toBe(0);
    expect((await client.post(`/api/admin/withdrawals/${w.id}/reject`, {}, admin.token)).status).toBe(400);
    const rejected = await client.post(`/api/admin/withdrawals/${w.id}/reject`, { reason: '收款账户异常' }, admin.token);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: '收款账户异常' });
    expect(await available(owner)).toBe(4_000);
    expect((await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token)).body.code).toBe('INVALID_STATE');
    expect((await eventsOf('withdrawal.rejected', w.id)).map((e) => e.data.rejected_by)).toEqual([admin.id]);
    const audits = (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === w.id);
    expect(audits.map((e) => [e.data.action, e.data.actor_id])).toEqual([['withdrawal.reject', admin.id]]);
    expect(sim.transferRequests.get(w.id)).toBeUndefined();
  });

  it('an approved withdrawal is transferred once and its hold leaves the platform', async () => {
    sim.setTransferMode('success');
    const owner = await person({ funds: 6_000 });
    const w = (await ask(owner, 5_000)).body;
    const answers = await Promise.all([1, 2, 3].map(() => client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(await paidAfter(answers.find((a) => a.status === 200)!, owner)).toMatchObject({ status: 'paid', paid_at: expect.any(String) });
    expect(sim.transfers.get(w.id)).toMatchObject({ trans_amount: '50.00', payee_identity: 'owner@example.com', payee_name: REAL_NAME });
    expect(sim.transferRequests.get(w.id)).toBe(1);
    expect(await available(owner)).toBe(1_000);
    const [payout] = await walletDb().query(`SELECT balance FROM accounts WHERE key = 'payout:alipay'`);
    expect(Number(payout.balance)).toBeGreaterThanOrEqual(5_000);
    expect(await eventsOf('withdrawal.paid', w.id)).toHaveLength(1);
    expect((await eventsOf('withdrawal.approved', w.id)).map((e) => e.data.approved_by)).toEqual([admin.id]);
  });

  it('keeps the payee account and name only sealed to their withdrawal row, and masked', async () => {
    sim.setTransferMode('success');
    const owner = await person({ funds: 4_000 });
    const first = (await ask(owner, 1_500)).body;
    const second = (await ask(owner, 1_500, { payee_account: 'other@example.com' })).body;
    const [row] = await walletDb().query(`SELECT to_jsonb(w) AS row FROM withdrawals w WHERE id = $1`, [first.id]);
    const stored = JSON.stringify(row.row);
    expect(stored).not.toContain('owner@example.com');
    expect(stored).not.toContain(REAL_NAME);
    expect(Object.keys(row.row)).not.toEqual(expect.arrayContaining(['payee_account']));
    expect(row.row).toMatchObject({ payee_account_masked: 'own****om', payee_name_masked: '张*', payee_account_sealed: expect.stringMatching(/^v2\./) });

    // opens at its own row only: the first row's sealed payee copied onto the second does not open there
    const secrets = new SecretBox(stack.services.wallet!.ctx.config.DATA_ENCRYPTION_KEYS as string);
    expect(openPayee(secrets, row.row)).toEqual({ account: 'owner@example.com', name: REAL_NAME });
    expect(() => openPayee(secrets, { ...row.row, id: second.id })).toThrow();

    // the copy is refused when the transfer is sent: nothing leaves, the hold stays, it is asked again later
    await walletDb().query(`UPDATE withdrawals SET payee_account_sealed = $2 WHERE id = $1`, [second.id, row.row.payee_account_sealed]);
    expect((await client.post(`/api/admin/withdrawals/${second.id}/approve`, {}, admin.token)).body).toMatchObject({ status: 'processing' });
    expect(sim.transferRequests.get(second.id)).toBeUndefined();
    await paidAfter(await client.post(`/api/admin/withdrawals/${first.id}/approve`, {}, admin.token), owner);
    expect(sim.transfers.get(first.id)).toMatchObject({ payee_identity: 'owner@example.com', payee_name: REAL_NAME });

    // its own sealed value back, the next look sends it to its own payee
    const own = sealPayee(secrets, second.id, { account: 'other@example.com', name: REAL_NAME });
    await walletDb().query(`UPDATE withdrawals SET payee_account_sealed = $2 WHERE id = $1`, [second.id, own.payee_account_sealed]);
    await eventually(async () => (await client.get(`/api/admin/withdrawals?user_id=${owner.id}&status=paid`, admin.token)).body.items.length, (n) => n === 2);
    expect(sim.transfers.get(second.id)).toMatchObject({ payee_identity: 'other@example.com', payee_name: REAL_NAME });
  });

  it('a transfer Alipay refuses fails the withdrawal and gives the hold back', async () => {
    sim.setTransferMode('fail', 'PAYEE_NOT_EXIST');
    const owner = await person({ funds: 2_000 });
    const w = (await ask(owner, 2_000)).body;
    const failed = await endsAs('failed', await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token), owner);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ id: w.id, status: 'failed', reason: 'PAYEE_NOT_EXIST' });
    expect(await available(owner)).toBe(2_000);
    expect(await eventsOf('withdrawal.failed', w.id)).toHaveLength(1);
    sim.setTransferMode('success');
  });

  it('a transfer whose answer is lost is asked about until paid, never sent twice', async () => {
    sim.setTransferMode('unknown');
    const owner = await person({ funds: 3_000 });
    const w = (await ask(owner, 3_000)).body;
    const answer = await client.post(`/api/admin/withdrawals/${w.id}/approve`, {}, admin.token);
    expect(answer.body).toMatchObject({ status: 'processing' });
    sim.setTransferMode('success');
    const paid = await eventually(
      async () => (await client.get(`/api/admin/withdrawals?user_id=${owner.id}`, admin.token)).body.items[0],
      (item) => item.status === 'paid',
    );
    expect(paid.id).toBe(w.id);
    expect(sim.transferRequests.get(w.id)).toBe(1);
    expect(await available(owner)).toBe(0);
    expect(await eventsOf('withdrawal.paid', w.id)).toHaveLength(1);
  });

  it('sends a withdrawal below withdrawal.auto_approve_below without review, and keeps the daily limit under racing requests', async () => {
    await setConfig('withdrawal.auto_approve_below', 2_500);
    await setConfig('withdrawal.daily_limit', 5_000);
    try {
      const owner = await person({ funds: 20_000 });
      const auto = await ask(owner, 2_000);
      await paidAfter(auto, owner);
      const racing = await Promise.all(Array.from({ length: 6 }, () => ask(owner, 1_000)));
      expect(racing.filter((r) => r.status === 201)).toHaveLength(3);
      expect(racing.filter((r) => r.status === 422).every((r) => r.body.code === 'WITHDRAWAL_DAILY_LIMIT')).toBe(true);
      expect(await available(owner)).toBe(15_000);
    } finally {
      await setConfig('withdrawal.auto_approve_below', 0);
      await setConfig('withdrawal.daily_limit', 5_000_000);
    }
  });

  it('lists withdrawals for the back office by status in cursor pages; the ledger check covers holds and payouts', async () => {
    const owner = await person({ funds: 9_000 });
    for (let i = 0; i < 3; i++) expect((await ask(owner, 1_000 + i)).status).toBe(201);
    const first = await client.get(`/api/admin/withdrawals?user_id=${owner.id}&status=pending_review&limit=2`, admin.token);
    expect(first.body.items.map((i: { amount: number }) => i.amount)).toEqual([1_002, 1_001]);
    const second = await client.get(`/api/admin/withdrawals?user_id=${owner.id}&status=pending_review&limit=2&cursor=${first.body.next_cursor}`, admin.token);
    expect(second.body).toMatchObject({ items: [expect.objectContaining({ amount: 1_000 })], next_cursor: null });
    expect((await client.get(`/api/admin/withdrawals?status=bogus`, admin.token)).status).toBe(400);
    expect((await client.get(`/api/admin/withdrawals`, owner.token)).status).toBe(401);
    expect(await findLedgerDifferences(walletDb())).toEqual([]);

    // what the check catches: a withdrawal called paid whose hold never left, a payout sent twice, one stuck
    const id = first.body.items[0].id as string;
    const caught = async (corrupt: string, undo: string, rule: RegExp) => {
      await walletDb().query(corrupt, [id]);
      try {
        expect((await findLedgerDifferences(walletDb())).map((d) => d.check)).toEqual(expect.arrayContaining([expect.stringMatching(rule)]));
      } finally {
        await walletDb().query(undo, [id]);
      }
    };
    await caught(
      `UPDATE withdrawals SET status = 'paid', finished_at = now() WHERE id = $1`,
      `UPDATE withdrawals SET status = 'pending_review', finished_at = NULL WHERE id = $1`,
      /paid out its amount once/,
    );
    await caught(
      `UPDATE withdrawals SET status = 'processing', next_check_at = NULL WHERE id = $1`,
      `UPDATE withdrawals SET status = 'pending_review' WHERE id = $1`,
      /no withdrawal is stuck/,
    );
    const [paidOne] = await walletDb().query(`SELECT id FROM withdrawals WHERE status = 'paid' LIMIT 1`);
    await walletDb().query(`UPDATE transfers SET withdrawal_id = $1 WHERE id = (SELECT id FROM transfers WHERE biz_type = 'withdrawal_payout' AND withdrawal_id <> $1 LIMIT 1)`, [paidOne.id]);
    expect((await findLedgerDifferences(walletDb())).map((d) => d.check)).toEqual(expect.arrayContaining([expect.stringMatching(/paid out its amount once/)]));
  });
});
