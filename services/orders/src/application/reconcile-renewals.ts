import { recordAudit } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import { leaseUnknownRenewal, type RenewalRow } from '../persistence/renewal-repository';
import type { OrdersDeps } from './deps';
import { forgetRenewal, recordRenewal } from './renew-order';

/**
 * A renewal whose charge outcome is unknown, resolved by asking the wallet (ADR 0065, as ADR 0028 for
 * payments): charged → the renewal is recorded on the order; not charged, read after its deadline
 * passed by the wallet's clock → it is forgotten and the order may move again. Anything else waits.
 */
async function settleUnknownRenewal(deps: OrdersDeps, log: Logger, renewal: RenewalRow) {
  const status = await deps.wallet.renewalChargeStatus(renewal.order_id, renewal.id);
  if (status.status === 'charged') {
    await recordRenewal(deps, renewal, status.charge!, { role: 'system', identity: null });
    log.info({ order_id: renewal.order_id, renewal_id: renewal.id }, 'renewal charge found in the wallet; order renewed');
    return;
  }
  if (Date.parse(status.as_of) <= renewal.charge_deadline_at.getTime()) return;
  await forgetRenewal(deps, renewal);
  await deps.db.transaction((tx) =>
    recordAudit(deps.events, tx, null, {
      action: 'order.renewal_not_charged',
      biz_type: 'order',
      biz_id: renewal.order_id,
      detail: { renewal_id: renewal.id, charge_deadline_at: renewal.charge_deadline_at.toISOString() },
    }),
  );
  log.info({ order_id: renewal.order_id, renewal_id: renewal.id }, 'the wallet never charged the renewal; the order is not renewed');
}

/** One run: renewals one by one under a committed lease, so replicas share the work; a failed check comes back after its lease. */
export async function reconcileRenewals(deps: OrdersDeps, log: Logger, maxRenewals = 100): Promise<number> {
  let settled = 0;
  while (settled < maxRenewals) {
    const now = new Date();
    const renewal = await deps.db.transaction((tx) => leaseUnknownRenewal(tx, now, deps.chargeWindowMs));
    if (!renewal) break;
    settled += 1;
    try {
      await settleUnknownRenewal(deps, log, renewal);
    } catch (err) {
      log.warn({ err, order_id: renewal.order_id, renewal_id: renewal.id }, 'renewal not reconciled; retried when its lease runs out');
    }
  }
  return settled;
}
