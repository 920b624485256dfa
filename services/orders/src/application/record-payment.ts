import type { Identity } from '@market/shared/auth';
import { findOrder, updateOrder, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { handOver } from './hand-over';
import { moveOrder } from './order-moves';
import type { OrderCharge } from './ports';
import { currentSettings } from './settings';

/**
 * Records the wallet's charge on the order: pending_payment → pending_handoff, the charge request
 * settled, the platform rate in force frozen for every later settlement (issue 19 item 3). The renter's
 * pay is refused (409) when the order has moved meanwhile; the reconciler (`system`) gets null.
 */
export async function recordPayment(
  deps: OrdersDeps,
  id: string,
  charge: OrderCharge,
  by: { actor: 'renter'; identity: Identity } | { actor: 'system'; identity: null },
): Promise<OrderRow | null> {
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, id, { lock: true });
    if (!order) return null;
    if (by.actor === 'system' && order.status !== 'pending_payment') return null;
    const settings = await currentSettings(tx);
    const paidAt = new Date(charge.charged_at);
    return moveOrder(deps, tx, order, {
      trigger: 'pay',
      actor: by.actor,
      identity: by.identity,
      settings,
      reason: by.actor === 'system' ? 'charge confirmed by the wallet' : null,
      changes: { paid_at: paidAt, charge_requested_at: null, charge_deadline_at: null, fee_rate_bps: settings['platform.commission_rate_bps'] },
      eventData: { paid_at: paidAt.toISOString() },
    });
  });
}

/**
 * After payment, hands the listing's stored credentials over (the `handoff` move made by `system`).
 * They are opened only now, after the charge has committed (issue 19 item 5), outside any
 * transaction; the order is locked only to write the handoff, and is looked at once.
 */
export async function handOverStoredCredentials(deps: OrdersDeps, paid: OrderRow): Promise<OrderRow> {
  if (paid.status !== 'pending_handoff' || paid.credentials_checked_at !== null) return paid;
  const credentials = await deps.listings.credentials(paid.listing_id);
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, paid.id, { lock: true });
    if (!order || order.status !== 'pending_handoff' || order.credentials_checked_at !== null) return order ?? paid;
    const checked = await updateOrder(tx, order.id, { credentials_checked_at: new Date(), updated_at: new Date() });
    if (credentials === null) return checked;
    const { order: handedOver } = await handOver(deps, tx, checked, {
      actor: 'system',
      identity: null,
      settings: await currentSettings(tx),
      authorId: order.owner_id,
      authorRole: 'owner',
      content: credentials,
      attachmentKeys: [],
    });
    return handedOver;
  });
}
