import { recordAudit } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import { findOrder, forgetChargeRequest, leaseReconcileWork } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { handOverStoredCredentials, recordPayment } from './record-payment';

/**
 * An unpaid order whose charge outcome is unknown, resolved by asking the wallet (ADR 0028):
 * charged → the order is paid (and its stored credentials handed over); not charged, read after the
 * charge deadline passed by the wallet's clock → the request is forgotten and the order is unpaid,
 * so the renter may pay again and the payment timeout applies. Anything else waits for the next run.
 */
async function settleUnknownCharge(deps: OrdersDeps, log: Logger, id: string) {
  const order = await findOrder(deps.db, id);
  if (!order || order.status !== 'pending_payment' || order.charge_deadline_at === null) return;
  const deadline = order.charge_deadline_at;
  const status = await deps.wallet.chargeStatus(id);
  if (status.status === 'charged') {
    const paid = await recordPayment(deps, id, status.charge!, { actor: 'system', identity: null });
    log.info({ order_id: id, amount: status.charge!.amount }, 'charge found in the wallet; order recorded as paid');
    if (paid) await handOverStoredCredentials(deps, paid);
    return;
  }
  if (Date.parse(status.as_of) <= deadline.getTime()) return;
  const forgotten = await deps.db.transaction(async (tx) => {
    if (!(await forgetChargeRequest(tx, id, deadline))) return false;
    await recordAudit(deps.events, tx, null, {
      action: 'order.charge_not_made',
      biz_type: 'order',
      biz_id: id,
      detail: { wallet: status.status, charge_deadline_at: deadline.toISOString() },
    });
    return true;
  });
  if (forgotten) log.info({ order_id: id }, 'the wallet never charged the order; it stays unpaid');
}

/** A paid order whose stored credentials were not looked at (the catalog failed during the pay). */
async function continueHandoff(deps: OrdersDeps, id: string) {
  const order = await findOrder(deps.db, id);
  if (order) await handOverStoredCredentials(deps, order);
}

/**
 * One run of the reconciler: takes orders one by one under a committed lease (SKIP LOCKED, so
 * replicas share the work) and settles each with no lock held while another service is asked. An
 * order whose check fails is logged and comes back once its lease has run out.
 */
export async function reconcileCharges(deps: OrdersDeps, log: Logger, maxOrders = 100): Promise<number> {
  let settled = 0;
  while (settled < maxOrders) {
    const now = new Date();
    const work = await deps.db.transaction((tx) => leaseReconcileWork(tx, now, new Date(now.getTime() - deps.chargeWindowMs), deps.chargeWindowMs));
    if (!work) break;
    settled += 1;
    try {
      if (work.kind === 'charge') await settleUnknownCharge(deps, log, work.id);
      else await continueHandoff(deps, work.id);
    } catch (err) {
      log.warn({ err, order_id: work.id, work: work.kind }, 'order not reconciled; retried when its lease runs out');
    }
  }
  return settled;
}
