import type { RefundActor, RefundMove } from '../domain/plan-refund-move';
import { findPayment } from '../persistence/payment-repository';
import { claimDueRefunds, claimRefund, type RefundRow } from '../persistence/refund-repository';
import type { WalletDeps } from './deps';
import { REFUND_MOVES } from './move-refund';
import type { RefundChannel, RefundOutcome } from './ports';
import { lookAtDue, lookNow, type ProviderLooks } from './provider-looks';

/** The provider answering about a refund. */
const PROVIDER: RefundActor = { kind: 'provider' };
const SENDER: RefundActor = { kind: 'system' };

/** The provider's answer about a refund, as a move of it. */
function moveOf(answer: RefundOutcome): RefundMove {
  switch (answer.outcome) {
    case 'refunded':
      return { name: 'refund_succeeded', refundedAt: answer.refundedAt, providerRefundId: answer.providerRefundId };
    case 'failed':
      return { name: 'refund_failed', reason: answer.reason };
    case 'unknown':
      return { name: 'refund_unknown' };
    case 'not_found':
      return { name: 'refund_not_found' };
  }
}

/**
 * Applies the provider's answer under the refund's lock; an answer for a refund no longer being sent
 * changes nothing. True when the plan has the refund sent (again), which the caller does once the
 * lock is released.
 */
async function applyAnswer(deps: WalletDeps, id: string, answer: RefundOutcome): Promise<boolean> {
  const logRefusal = () => {
    if (answer.outcome === 'failed') deps.log.warn({ refund_id: id, reason: answer.reason }, 'refund refused by the provider; hold released');
  };
  return (await REFUND_MOVES.moveIfAllowed(deps, id, PROVIDER, () => moveOf(answer), logRefusal))?.send ?? false;
}

/** Records, before anything leaves, that the refund is being sent; true only for the one caller that moved it first. */
async function markSending(deps: WalletDeps, id: string): Promise<boolean> {
  return (await REFUND_MOVES.moveIfAllowed(deps, id, SENDER, () => ({ name: 'send' }))) !== null;
}

/**
 * One look at a refund approved or being sent. It is sent only by the caller that first moves it to
 * `processing`, and that move is committed before the request leaves: after a crash, a timeout or a
 * lost answer the outcome is asked about (query), never sent blind again. Only when the provider
 * says it never received the refund is it sent again, under the same refund id, which the provider
 * refunds once at most.
 */
async function look(deps: WalletDeps, row: RefundRow): Promise<void> {
  const channel = deps.refunds.get(row.provider);
  if (!channel) {
    deps.log.error({ refund_id: row.id, provider: row.provider }, 'refund of a provider no longer enabled; waits');
    return;
  }
  const payment = (await findPayment(deps.db, row.payment_id))!;
  const send = () => sendTo(channel, row, { gatewayTxnId: payment.gateway_txn_id, paymentAmount: Number(payment.amount) });
  const firstSend = row.status === 'approved' && (await markSending(deps, row.id));
  const answer = firstSend ? await send() : await channel.query({ refundId: row.id, paymentId: row.payment_id });
  if (await applyAnswer(deps, row.id, answer)) await applyAnswer(deps, row.id, await send());
}

function sendTo(channel: RefundChannel, row: RefundRow, payment: { gatewayTxnId: string | null; paymentAmount: number }) {
  return channel.refund({
    refundId: row.id,
    paymentId: row.payment_id,
    gatewayTxnId: payment.gatewayTxnId,
    refundAmount: Number(row.amount),
    paymentAmount: payment.paymentAmount,
    reason: row.reason ?? '退款',
  });
}

const REFUNDS: ProviderLooks<RefundRow> = { ...REFUND_MOVES.kind, claim: claimRefund, claimDue: claimDueRefunds, lookedAtIn: ['approved', 'processing'], look };

/** Sends (or asks about) one refund now, if it is due; answers it as it then stands. */
export function sendRefund(deps: WalletDeps, id: string): Promise<RefundRow> {
  return lookNow(deps, REFUNDS, id);
}

/** The periodic job: every refund approved or being sent whose next look is due gets one, until each is refunded or failed. */
export function resolveDueRefunds(deps: WalletDeps, now = new Date()): Promise<number> {
  return lookAtDue(deps, REFUNDS, now);
}
