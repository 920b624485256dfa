import { randomBytes } from 'node:crypto';
import { isUuid, updateReturning, type Db, type Queryable } from '@market/shared/db';
import { InvalidState, NotFound } from '@market/shared/errors';
import type { BillLine, BillSource, RefundChannel, RefundOutcome } from '../application/ports';
import { shanghaiDayBounds } from '../domain/shanghai-day';

interface SandboxRefundRow {
  refund_id: string;
  payment_id: string;
  amount: string;
  status: 'processing' | 'succeeded' | 'failed';
  provider_refund_id: string;
  reason: string | null;
  refunded_at: Date | null;
}

const COLUMNS = 'refund_id, payment_id, amount, status, provider_refund_id, reason, refunded_at';

function outcomeOf(row: SandboxRefundRow): Exclude<RefundOutcome, { outcome: 'not_found' }> {
  if (row.status === 'succeeded') return { outcome: 'refunded', providerRefundId: row.provider_refund_id, refundedAt: row.refunded_at! };
  if (row.status === 'failed') return { outcome: 'failed', reason: row.reason ?? 'REFUND_FAILED' };
  return { outcome: 'unknown', detail: 'PROCESSING' };
}

/**
 * The development gateway's refunds (production refuses the sandbox, adapters/providers.ts). Keyed
 * by our refund id as a real provider is: a repeat of one id is recorded once. A refund the sandbox
 * can accept waits `processing` until a tester marks it done or failed (`complete`), as a sandbox
 * payment waits on its pay page; one it cannot (an unpaid payment, more than it paid) fails at once.
 */
export class SandboxRefunds implements RefundChannel {
  readonly provider = 'sandbox' as const;

  constructor(private readonly db: Db) {}

  async refund(input: { refundId: string; paymentId: string; refundAmount: number }): Promise<Exclude<RefundOutcome, { outcome: 'not_found' }>> {
    return this.db.transaction(async (tx) => {
      const [payment]: Array<{ amount: string; status: string }> = await tx.query(
        `SELECT amount, status FROM sandbox_payments WHERE payment_id = $1 FOR UPDATE`,
        [input.paymentId],
      );
      const [refunded]: Array<{ total: string }> = await tx.query(
        `SELECT COALESCE(SUM(amount), 0)::text AS total FROM sandbox_refunds WHERE payment_id = $1 AND status <> 'failed' AND refund_id <> $2`,
        [input.paymentId, input.refundId],
      );
      const refusal =
        !payment || payment.status !== 'succeeded'
          ? 'TRADE_NOT_PAID'
          : input.refundAmount > Number(payment.amount) - Number(refunded!.total)
            ? 'REFUND_AMOUNT_EXCEEDED'
            : null;
      await tx.query(
        `INSERT INTO sandbox_refunds (refund_id, payment_id, amount, status, provider_refund_id, reason)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (refund_id) DO NOTHING`,
        [input.refundId, input.paymentId, input.refundAmount, refusal ? 'failed' : 'processing', `sbr_${randomBytes(12).toString('hex')}`, refusal],
      );
      return outcomeOf((await this.find(tx, input.refundId))!);
    });
  }

  async query(input: { refundId: string }): Promise<RefundOutcome> {
    const row = await this.find(this.db, input.refundId);
    return row ? outcomeOf(row) : { outcome: 'not_found' };
  }

  /** The tester's choice for a refund still processing, which later queries answer. */
  async complete(refundId: string, status: 'succeeded' | 'failed') {
    const [row] = isUuid(refundId)
      ? await updateReturning<SandboxRefundRow>(
          this.db,
          `UPDATE sandbox_refunds SET status = $2, refunded_at = CASE WHEN $2 = 'succeeded' THEN now() END,
             reason = CASE WHEN $2 = 'failed' THEN 'REFUND_FAILED_BY_TESTER' END
           WHERE refund_id = $1 AND status = 'processing' RETURNING ${COLUMNS}`,
          [refundId, status],
        )
      : [];
    if (row) return { refund_id: row.refund_id, status };
    const found = await this.find(this.db, refundId);
    if (!found) throw new NotFound('the sandbox received no such refund');
    throw new InvalidState(`the refund is ${found.status}; it can no longer be completed`);
  }

  private async find(db: Queryable, refundId: string): Promise<SandboxRefundRow | null> {
    if (!isUuid(refundId)) return null;
    const rows: SandboxRefundRow[] = await db.query(`SELECT ${COLUMNS} FROM sandbox_refunds WHERE refund_id = $1`, [refundId]);
    return rows[0] ?? null;
  }
}

/**
 * The sandbox's daily bill, built from its own records as a provider builds its bills: the payments
 * paid and the refunds done in that day (Asia/Shanghai), free of fees (the sandbox pays nobody out,
 * so it has no transfer lines). A day is billed once it is over. Lines a test dropped from or added
 * to a day (`dropSandboxBillLine`, `addSandboxBillLine`) stand for a provider's bill that disagrees.
 */
export class SandboxBills implements BillSource {
  readonly provider = 'sandbox' as const;

  constructor(private readonly db: Db) {}

  async dailyBill(day: string): Promise<BillLine[] | null> {
    const { start, end } = shanghaiDayBounds(day);
    if (end > new Date()) return null;
    const payments: Array<{ payment_id: string; gateway_txn_id: string; amount: string; paid_at: Date }> = await this.db.query(
      `SELECT payment_id, gateway_txn_id, amount, paid_at FROM sandbox_payments WHERE status = 'succeeded' AND paid_at >= $1 AND paid_at < $2`,
      [start, end],
    );
    const refunds: Array<{ refund_id: string; provider_refund_id: string; amount: string; refunded_at: Date }> = await this.db.query(
      `SELECT refund_id, provider_refund_id, amount, refunded_at FROM sandbox_refunds WHERE status = 'succeeded' AND refunded_at >= $1 AND refunded_at < $2`,
      [start, end],
    );
    const adjustments: Array<{ action: 'drop' | 'add'; kind: BillLine['kind']; reference: string; amount: string; fee: string }> = await this.db.query(
      `SELECT action, kind, reference, amount, fee FROM sandbox_bill_adjustments WHERE day = $1 ORDER BY id`,
      [day],
    );
    const dropped = new Set(adjustments.filter((a) => a.action === 'drop').map((a) => `${a.kind}:${a.reference}`));
    const lines: BillLine[] = [
      ...payments.map((p) => ({ kind: 'payment' as const, reference: p.payment_id, providerId: p.gateway_txn_id, amount: Number(p.amount), fee: 0, occurredAt: p.paid_at })),
      ...refunds.map((r) => ({ kind: 'refund' as const, reference: r.refund_id, providerId: r.provider_refund_id, amount: Number(r.amount), fee: 0, occurredAt: r.refunded_at })),
    ].filter((line) => !dropped.has(`${line.kind}:${line.reference}`));
    for (const a of adjustments.filter((x) => x.action === 'add')) {
      lines.push({ kind: a.kind, reference: a.reference, providerId: null, amount: Number(a.amount), fee: Number(a.fee), occurredAt: start });
    }
    return lines;
  }
}

/** Test hook: the sandbox's bill of `day` leaves out the line of `reference`. */
export async function dropSandboxBillLine(db: Queryable, day: string, kind: BillLine['kind'], reference: string) {
  await db.query(`INSERT INTO sandbox_bill_adjustments (day, action, kind, reference) VALUES ($1, 'drop', $2, $3)`, [day, kind, reference]);
}

/** Test hook: the sandbox's bill of `day` carries a line none of its records has. */
export async function addSandboxBillLine(db: Queryable, day: string, line: { kind: BillLine['kind']; reference: string; amount: number; fee?: number }) {
  await db.query(`INSERT INTO sandbox_bill_adjustments (day, action, kind, reference, amount, fee) VALUES ($1, 'add', $2, $3, $4, $5)`, [
    day,
    line.kind,
    line.reference,
    line.amount,
    line.fee ?? 0,
  ]);
}
