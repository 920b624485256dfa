import { type Identity } from '@market/shared/auth';
import { InvalidState } from '@market/shared/errors';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { assertMove, moveOrder, settlementFigures } from './order-moves';
import { toOrderView } from './order-view';
import { currentSettings } from './settings';

/**
 * The renter cancels before the handoff. A paid order's escrow goes back to the renter: the wallet
 * refunds whatever the escrow holds when it sees `order.cancelled`.
 */
export async function cancelOrder(deps: OrdersDeps, identity: Identity, id: string, reason: string | null) {
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    const moved = await moveOrder(deps, tx, order, { trigger: 'cancel', actor: role, identity, settings: await currentSettings(tx), reason });
    return toOrderView(moved);
  });
}

/** The renter confirms the account works: the rental clock runs from now for the hours paid. */
export async function confirmReceive(deps: OrdersDeps, identity: Identity, id: string) {
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    assertMove(order, 'confirm_receive', role);
    const startedAt = new Date();
    const endsAt = new Date(startedAt.getTime() + order.hours * 3_600_000);
    const moved = await moveOrder(deps, tx, order, {
      trigger: 'confirm_receive',
      actor: role,
      identity,
      settings: await currentSettings(tx),
      changes: { started_at: startedAt, ends_at: endsAt },
      eventData: { started_at: startedAt.toISOString(), ends_at: endsAt.toISOString() },
    });
    return toOrderView(moved);
  });
}

/** The owner confirms the renter's checkout, or the renter accepts the owner's correction: the order settles as proposed. */
export async function completeCheckout(deps: OrdersDeps, identity: Identity, id: string, trigger: 'confirm_checkout' | 'accept_checkout') {
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    assertMove(order, trigger, role);
    if (!order.checkout) throw new InvalidState('order has no checkout to settle');
    const moved = await moveOrder(deps, tx, order, {
      trigger,
      actor: role,
      identity,
      settings: await currentSettings(tx),
      eventData: settlementFigures(order.checkout),
    });
    return toOrderView(moved);
  });
}
