import { v7 as uuidv7 } from 'uuid';
import { ReconciliationRun } from '@market/contracts';
import { api, eventually, newAdmin, newUser, outboxEvents, startStack, type Caller, type Stack } from '@market/testkit';
import { addSandboxBillLine, dropSandboxBillLine } from '../src/adapters/sandbox-refunds';
import { shanghaiDayBounds, shanghaiDayOf, shanghaiYesterday } from '../src/domain/shanghai-day';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { findingsOfRun } from './support';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('daily reconciliation of the sandbox provider’s bill with the ledger', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let finance: Caller;
  const today = shanghaiDayOf(new Date());
  const yesterday = shanghaiYesterday(new Date());
  const cleanDay = shanghaiDayOf(new Date(Date.now() - 3 * DAY_MS));
  const dirtyDay = shanghaiDayOf(new Date(Date.now() - 2 * DAY_MS));

  beforeAll(async () => {
    // the job reconciles yesterday from midnight on, looking often
    stack = await startStack({
      services: ['admin', 'wallet'],
      serviceEnv: { wallet: { REFUND_CHECK_MS: '100', RECONCILIATION_AFTER: '00:00', RECONCILIATION_SCAN_MS: '300' } },
    });
    finance = await newAdmin(stack, ['finance']);
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;
  const noonOf = (day: string) => new Date(shanghaiDayBounds(day).start.getTime() + 12 * 60 * 60 * 1000);
  const run = (provider: string, day: string, token = finance.token) => client.post('/api/admin/reconciliations', { provider, day }, token);

  /** A recharge paid on the sandbox's pay page, its payment dated (by both sides) at noon of `day`. */
  async function paidOn(user: Caller, amount: number, day: string): Promise<string> {
    const started = await client.post('/api/wallet/recharge/pay', { amount }, user.token);
    expect((await client.post(`/api/payments/sandbox/${started.body.id}/complete`, { status: 'succeeded' })).status).toBe(200);
    await db().query(`UPDATE payments SET paid_at = $2 WHERE id = $1`, [started.body.id, noonOf(day)]);
    await db().query(`UPDATE sandbox_payments SET paid_at = $2 WHERE payment_id = $1`, [started.body.id, noonOf(day)]);
    return started.body.id;
  }

  /** A refund asked for, approved and done, dated (by both sides) at noon of `day`. */
  async function refundedOn(user: Caller, paymentId: string, amount: number, day: string): Promise<string> {
    const refund = (await client.post('/api/wallet/refunds', { payment_id: paymentId, amount }, user.token)).body;
    expect((await client.post(`/api/admin/refunds/${refund.id}/approve`, {}, finance.token)).status).toBe(200);
    await client.post(`/api/payments/sandbox/refunds/${refund.id}/complete`, { status: 'succeeded' });
    await eventually(async () => (await db().query(`SELECT status FROM refunds WHERE id = $1`, [refund.id]))[0].status, (s) => s === 'refunded');
    await db().query(`UPDATE refunds SET refunded_at = $2 WHERE id = $1`, [refund.id, noonOf(day)]);
    await db().query(`UPDATE sandbox_refunds SET refunded_at = $2 WHERE refund_id = $1`, [refund.id, noonOf(day)]);
    return refund.id;
  }

  const alertsFor = async (runId: string) => (await outboxEvents(stack, 'wallet', 'ops.alert')).filter((e) => e.data.subject_id === runId);

  it('a day where bill and ledger agree raises no finding and no alert', async () => {
    const user = newUser();
    const payment = await paidOn(user, 2_000, cleanDay);
    await refundedOn(user, payment, 500, cleanDay);
    const res = await run('sandbox', cleanDay);
    expect(res.status).toBe(200);
    const clean = ReconciliationRun.strict().parse(res.body);
    expect(clean).toMatchObject({ provider: 'sandbox', day: cleanDay, status: 'clean', bill_lines: 2, ledger_lines: 2, matched: 2, findings: 0, bill_total: 1_500, ledger_total: 1_500 });
    expect((await client.get(`/api/admin/reconciliations/${clean.id}`, finance.token)).body.items).toEqual([]);
    expect(await alertsFor(clean.id)).toEqual([]);
  });

  it('a bill line the ledger lacks and a ledger movement the bill lacks are exactly two findings, stored once and alerted once however often the day runs', async () => {
    const user = newUser();
    await paidOn(user, 1_500, dirtyDay);
    const unbilled = await paidOn(user, 3_000, dirtyDay);
    const stranger = uuidv7();
    await dropSandboxBillLine(db(), dirtyDay, 'payment', unbilled);
    await addSandboxBillLine(db(), dirtyDay, { kind: 'payment', reference: stranger, amount: 777 });

    const racing = await Promise.all([run('sandbox', dirtyDay), run('sandbox', dirtyDay), run('sandbox', dirtyDay)]);
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(racing.map((r) => r.body.id)).size).toBe(1);
    const again = await run('sandbox', dirtyDay);
    expect(again.body).toEqual(racing[0]!.body);
    expect(again.body).toMatchObject({ status: 'findings', findings: 2, matched: 1, bill_lines: 2, ledger_lines: 2, bill_total: 2_277, ledger_total: 4_500 });

    expect(await findingsOfRun(stack, again.body.id, finance)).toEqual([
      ['missing_in_bill', 'payment', unbilled, null, 3_000],
      ['missing_in_ledger', 'payment', stranger, 777, null],
    ]);
    expect((await db().query(`SELECT count(*)::int AS n FROM reconciliation_runs WHERE provider = 'sandbox' AND day = $1`, [dirtyDay]))[0].n).toBe(1);
    const alerts = await alertsFor(again.body.id);
    expect(alerts.map((a) => [a.data.alert, a.data.detail.missing_in_bill, a.data.detail.missing_in_ledger])).toEqual([['RECONCILIATION_FINDINGS', 1, 1]]);

    const list = await client.get('/api/admin/reconciliations?status=findings', finance.token);
    expect(list.body.items.map((r: { id: string }) => r.id)).toContain(again.body.id);
  });

  it('refuses a day not over, a provider without bills, and a caller without the permission; nothing is stored', async () => {
    const notOver = await run('sandbox', today);
    expect([notOver.status, notOver.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await run('sandbox', '2026-02-30')).status).toBe(400);
    const alipay = await run('alipay', cleanDay);
    expect([alipay.status, alipay.body.code]).toEqual([400, 'CHANNEL_UNAVAILABLE']);
    const support = await newAdmin(stack, ['customer_service']);
    expect((await run('sandbox', cleanDay, support.token)).status).toBe(403);
    expect((await client.get('/api/admin/reconciliations/nope', finance.token)).status).toBe(404);
    expect((await db().query(`SELECT count(*)::int AS n FROM reconciliation_runs WHERE day = $1`, [today]))[0].n).toBe(0);
  });

  it('the daily job reconciles yesterday by itself, once', async () => {
    const runs = await eventually(
      async () => db().query(`SELECT id FROM reconciliation_runs WHERE provider = 'sandbox' AND day = $1`, [yesterday]),
      (rows) => rows.length > 0,
    );
    expect(runs).toHaveLength(1);
    expect(await findLedgerDifferences(db())).toEqual([]);
  });
});
