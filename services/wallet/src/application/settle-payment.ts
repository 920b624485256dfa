import type { Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { GATEWAY_CLEARING, userAvailable } from '../domain/accounts';
import { paymentMove, type PaymentOutcome } from '../domain/payment';
import { finishPayment, findPayment, type PaymentRow } from '../persistence/payment-repository';
import { recordTransfers } from '../persistence/ledger-repository';
import type { WalletDeps } from './deps';

export interface PaymentReport {
  outcome: PaymentOutcome;
  gatewayTxnId: string | null;
  paidAt: Date | null;
  /** what reported it, for the audit entry of a late success */
  source?: string;
}

async function apply(deps: WalletDeps, tx: Tx, row: PaymentRow, report: PaymentReport, now: Date) {
  const move = paymentMove(row.status, report.outcome);
  if (!move) return row;
  const amount = Number(row.amount);
  const status = move.to;
  if (status === 'succeeded') {
    await recordTransfers(
      tx,
      [{ from: GATEWAY_CLEARING, to: userAvailable(row.user_id), amount, bizType: 'recharge', orderId: null, paymentId: row.id }],
      now,
    );
    const paid = await finishPayment(tx, row.id, row.status, { status, gateway_txn_id: report.gatewayTxnId, paid_at: report.paidAt ?? now, finished_at: now });
    await deps.events.publish(tx, 'payment.succeeded', {
      payment_id: row.id,
      user_id: row.user_id,
      amount,
      purpose: 'recharge',
      order_id: null,
      gateway_txn_id: paid.gateway_txn_id,
      paid_at: paid.paid_at!.toISOString(),
    });
    if (move.late) {
      // The payer's money reached the gateway after we had given up on the payment: it is theirs, so
      // it is credited; the back office is told (audit entry and notification) and may refund it.
      deps.log.error({ payment_id: row.id, was: row.status, provider: row.provider }, 'gateway reported a success for a payment already given up; credited');
      const detail = { was: row.status, amount, provider: row.provider, gateway_txn_id: paid.gateway_txn_id, source: report.source ?? null, user_id: row.user_id };
      await recordAudit(deps.events, tx, null, { action: 'payment.late_success_credited', biz_type: 'payment', biz_id: row.id, detail });
      await deps.events.publish(tx, 'ops.alert', {
        alert: 'PAYMENT_LATE_SUCCESS',
        severity: 'warning',
        service: 'wallet',
        summary: `${row.provider} reported recharge ${row.id} (${amount} fen) paid after it was ${row.status}; it was credited to user ${row.user_id}`,
        subject_type: 'payment',
        subject_id: row.id,
        detail,
        raised_at: now.toISOString(),
      });
    }
    return paid;
  }
  const finished = await finishPayment(tx, row.id, row.status, { status, gateway_txn_id: report.gatewayTxnId, paid_at: null, finished_at: now });
  if (status === 'failed') {
    await deps.events.publish(tx, 'payment.failed', {
      payment_id: row.id,
      user_id: row.user_id,
      amount,
      purpose: 'recharge',
      gateway_txn_id: finished.gateway_txn_id,
      failed_at: now.toISOString(),
    });
  } else {
    await deps.events.publish(tx, 'payment.expired', {
      payment_id: row.id,
      user_id: row.user_id,
      amount,
      purpose: 'recharge',
      expired_at: now.toISOString(),
    });
  }
  return finished;
}

/**
 * Moves a recharge payment by what the gateway (callback or query) or the clock reported, crediting
 * the wallet on success. The payment row is locked first, so callbacks, queries and the expiry job
 * racing on one payment queue up and only the first moves it: one credit at most.
 */
export async function settlePayment(deps: WalletDeps, paymentId: string, report: PaymentReport): Promise<PaymentRow | null> {
  return deps.db.transaction(async (tx) => {
    const row = await findPayment(tx, paymentId, true);
    if (!row) return null;
    return apply(deps, tx, row, report, new Date());
  });
}
