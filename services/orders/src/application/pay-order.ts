import type { Identity } from '@market/shared/auth';
import type { OrdersDeps } from './deps';
import { handOver } from './hand-over';
import { partyOrder } from './order-access';
import { assertMove, moveOrder } from './order-moves';
import { toOrderView } from './order-view';
import { currentSettings } from './settings';

/**
 * The renter pays from the wallet. The order stays locked while the wallet charges it, so of
 * concurrent pays one charges and the others find the order paid (409). The order id is the
 * charge's idempotency key: if this transaction fails after the charge, paying again gets the
 * first charge back and completes the move; nothing is charged twice. Wallet down: 503, order
 * unchanged. A listing with stored credentials is handed over in the same transaction.
 */
export async function payOrder(deps: OrdersDeps, identity: Identity, id: string) {
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    assertMove(order, 'pay', role);
    const [settings, credentials] = await Promise.all([currentSettings(tx), deps.listings.credentials(order.listing_id)]);
    const charge = await deps.wallet.charge({
      id: order.id,
      renter_id: order.renter_id,
      owner_id: order.owner_id,
      amount: Number(order.amount),
    });
    const paidAt = new Date(charge.charged_at);
    let moved = await moveOrder(deps, tx, order, {
      trigger: 'pay',
      actor: role,
      identity,
      settings,
      changes: { paid_at: paidAt },
      eventData: { paid_at: paidAt.toISOString() },
    });
    if (credentials !== null) {
      ({ order: moved } = await handOver(deps, tx, moved, {
        actor: 'system',
        identity: null,
        settings,
        authorId: moved.owner_id,
        authorRole: 'owner',
        content: credentials,
        attachmentKeys: [],
      }));
    }
    return toOrderView(moved);
  });
}
