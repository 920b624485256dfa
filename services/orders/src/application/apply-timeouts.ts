import type { Tx } from '@market/shared/db';
import type { Logger } from '@market/shared/logging';
import type { OrderSettings } from '../domain/settings';
import { timedOutConsumption } from '../domain/settlement';
import { claimDueOrder, type OrderRow } from '../persistence/order-repository';
import { settledCheckout } from './checkout';
import type { OrdersDeps } from './deps';
import { moveOrder, settlementFigures } from './order-moves';
import { escrowOf, feeRateOf } from './order-view';
import { handleOverdue } from './overdue-orders';
import { currentSettings } from './settings';

/** The timed move of CONTRACT §4 for the state the order is in, made by the system. */
async function timeOut(deps: OrdersDeps, tx: Tx, log: Logger, order: OrderRow, settings: OrderSettings): Promise<OrderRow> {
  const base = { trigger: 'timeout' as const, actor: 'system' as const, identity: null, settings };
  switch (order.status) {
    case 'disputed':
    case 'abnormal':
      return handleOverdue(deps, tx, log, order, settings);
    case 'pending_payment':
      return moveOrder(deps, tx, order, { ...base, reason: 'payment timeout' });
    case 'pending_handoff':
      return moveOrder(deps, tx, order, { ...base, reason: 'handoff timeout' });
    case 'pending_receive': {
      const startedAt = new Date();
      const endsAt = new Date(startedAt.getTime() + order.hours * 3_600_000);
      return moveOrder(deps, tx, order, {
        ...base,
        reason: 'receipt confirmed automatically',
        changes: { started_at: startedAt, ends_at: endsAt },
        eventData: { started_at: startedAt.toISOString(), ends_at: endsAt.toISOString() },
      });
    }
    case 'in_use': {
      // The rental ran out without a checkout: the full rent, no deduction.
      const escrow = escrowOf(order);
      const checkout = settledCheckout(escrow, { consumption: escrow.rent, deposit_deduction: 0 }, feeRateOf(order, settings), null, []);
      return moveOrder(deps, tx, order, {
        ...base,
        reason: 'rental ended',
        changes: { checkout },
        eventData: settlementFigures(checkout),
      });
    }
    case 'pending_checkout_confirm': {
      // The owner did not answer: the renter's figures, but at least the time actually used (ADR 0029).
      const proposed = order.checkout ?? { consumption: Number(order.rent), deposit_deduction: 0, reason: null, evidence_keys: [] };
      const consumption = timedOutConsumption(proposed.consumption, Number(order.hourly_price), Number(order.rent), order.started_at, order.status_changed_at);
      const checkout = settledCheckout(
        escrowOf(order),
        { consumption, deposit_deduction: proposed.deposit_deduction },
        feeRateOf(order, settings),
        proposed.reason,
        proposed.evidence_keys,
      );
      return moveOrder(deps, tx, order, {
        ...base,
        reason: consumption === proposed.consumption ? 'checkout confirmed automatically' : 'checkout completed automatically at the time used',
        changes: { checkout },
        eventData: settlementFigures(checkout),
      });
    }
    default: {
      const checkout =
        order.checkout ??
        settledCheckout(escrowOf(order), { consumption: Number(order.rent), deposit_deduction: 0 }, feeRateOf(order, settings), null, []);
      return moveOrder(deps, tx, order, {
        ...base,
        reason: 'correction accepted automatically',
        changes: { checkout },
        eventData: settlementFigures(checkout),
      });
    }
  }
}

/**
 * Moves every order whose deadline has passed, one transaction per order. Each order is claimed
 * with FOR UPDATE SKIP LOCKED, so replicas running the scan together never move one twice, and an
 * order a party is moving right now is left for the next run (its deadline will have changed). An
 * order whose move fails is logged and passed over for the rest of the run, so it cannot hold up
 * the others.
 */
export async function applyDueTimeouts(deps: OrdersDeps, log: Logger, maxMoves = 200): Promise<number> {
  let moved = 0;
  const failed: string[] = [];
  while (moved + failed.length < maxMoves) {
    let claimed: string | null = null;
    try {
      const did = await deps.db.transaction(async (tx) => {
        const order = await claimDueOrder(tx, new Date(), failed);
        if (!order) return false;
        claimed = order.id;
        await timeOut(deps, tx, log, order, await currentSettings(tx));
        return true;
      });
      if (!did) break;
      moved += 1;
    } catch (err) {
      if (claimed === null) throw err;
      failed.push(claimed);
      log.error({ err, order_id: claimed }, 'timed move failed; the order is retried on the next run');
    }
  }
  return moved;
}
