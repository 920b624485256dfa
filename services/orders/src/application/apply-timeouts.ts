import type { Tx } from '@market/shared/db';
import type { Logger } from '@market/shared/logging';
import { planOrThrow } from '@market/shared/planning';
import { lockOpenDisputeOf } from '../persistence/dispute-repository';
import { claimDueOrder, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { carryOut, planOrderMove } from './order-moves';

/**
 * The timed move for the state the order is in, made by the system (planMove says which, ADR 0042).
 * The first deadline of a disputed or abnormal order alerts the back office, in the log too.
 */
async function timeOut(deps: OrdersDeps, tx: Tx, log: Logger, order: OrderRow): Promise<void> {
  const openDispute = await lockOpenDisputeOf(tx, order.id);
  const plan = planOrThrow(await planOrderMove(deps, tx, order, { type: 'timeout', openDispute }, { role: 'system', identity: null }));
  if (plan.trigger === 'overdue') {
    const alert = { order_id: order.id, status: order.status, since: order.status_changed_at, resolves_at: plan.changes.deadline_at };
    log.error(alert, 'order overdue; the back office must decide');
  }
  await carryOut(deps, tx, order, plan, null);
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
        await timeOut(deps, tx, log, order);
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
