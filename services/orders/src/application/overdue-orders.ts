import type { Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import type { OrderSettings } from '../domain/settings';
import { refundAll, timedOutConsumption } from '../domain/settlement';
import { deadlineOf } from '../domain/timeouts';
import { lockOpenDisputeOf } from '../persistence/dispute-repository';
import { updateOrder, type OrderRow } from '../persistence/order-repository';
import { settledCheckout } from './checkout';
import type { OrdersDeps } from './deps';
import { moveOrder, settlementFigures } from './order-moves';
import { escrowOf, feeRateOf } from './order-view';
import { resolveOpenDispute } from './resolve-dispute';

/**
 * A disputed or abnormal order past its threshold (ADR 0029). The first time: the back office is
 * alerted (an error log line, an `order.overdue` audit entry with result failure and an `ops.alert`
 * in the back office's notifications) and the deadline moves to twice the threshold. The second
 * time the default resolution applies: the order closes, the owner gets the rent for the hours the
 * account was in use until the order was frozen (at the listed price, at most the rent, at the
 * order's frozen rate), no deposit deduction, the rest back to the renter; an unpaid order closes
 * with nothing to pay out. An open dispute is resolved `close` by the system with the same figures.
 */
export async function handleOverdue(deps: OrdersDeps, tx: Tx, log: Logger, order: OrderRow, settings: OrderSettings): Promise<OrderRow> {
  const now = new Date();
  if (order.overdue_alerted_at === null) {
    const alerted = { ...order, overdue_alerted_at: now };
    const resolvesAt = deadlineOf(alerted, settings, deps.minuteMs);
    log.error({ order_id: order.id, status: order.status, since: order.status_changed_at, resolves_at: resolvesAt }, 'order overdue; the back office must decide');
    const detail = { status: order.status, since: order.status_changed_at.toISOString(), default_resolution_at: resolvesAt?.toISOString() ?? null };
    await recordAudit(deps.events, tx, null, { action: 'order.overdue', biz_type: 'order', biz_id: order.id, detail, result: 'failure' });
    await deps.events.publish(tx, 'ops.alert', {
      alert: 'ORDER_OVERDUE',
      severity: 'warning',
      service: 'orders',
      summary: `order ${order.id} has been ${order.status} since ${detail.since} with nobody deciding; unless the back office does, the default resolution applies at ${detail.default_resolution_at ?? 'the next deadline'}`,
      subject_type: 'order',
      subject_id: order.id,
      detail,
      raised_at: now.toISOString(),
    });
    return updateOrder(tx, order.id, { overdue_alerted_at: now, deadline_at: resolvesAt, updated_at: now });
  }
  const escrow = escrowOf(order);
  const consumption = timedOutConsumption(0, Number(order.hourly_price), escrow.rent, order.started_at, order.status_changed_at);
  const reason = `no decision within the ${order.status} deadline: the time used at the listed price, no deduction`;
  const settlement = order.paid_at
    ? settledCheckout(escrow, { consumption, deposit_deduction: 0 }, feeRateOf(order, settings), reason, [])
    : { ...refundAll(escrow), reason, evidence_keys: [] };
  const moved = await moveOrder(deps, tx, order, {
    trigger: 'timeout',
    actor: 'system',
    identity: null,
    settings,
    reason,
    changes: order.paid_at ? { checkout: settlement } : {},
    eventData: settlementFigures(settlement),
  });
  const dispute = await lockOpenDisputeOf(tx, order.id);
  if (dispute) await resolveOpenDispute(deps, tx, dispute, order, { result: 'close', note: reason, identity: null, settlement });
  return moved;
}
