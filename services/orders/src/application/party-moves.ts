import { type Identity } from '@market/shared/auth';
import type { Move } from '../domain/moves';
import { shareWithParties } from './caller-files';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { accepted, carryOut, planOrderMove, type MoveDone } from './order-moves';
import { toOrderView } from './order-view';

/**
 * A party's move of its order, in one transaction on the locked order: planned (and refused there),
 * the files it names shared with both parties once the move is allowed, then carried out.
 */
export async function partyMove(deps: OrdersDeps, identity: Identity, id: string, move: Move, filesToShare: string[] = []): Promise<MoveDone> {
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    const plan = accepted(await planOrderMove(deps, tx, order, move, { role, identity }));
    await shareWithParties(deps, order, filesToShare);
    return carryOut(deps, tx, order, plan, identity);
  });
}

/**
 * The renter cancels before the handoff. A paid order's escrow goes back to the renter: the wallet
 * refunds whatever the escrow holds when it sees `order.cancelled`.
 */
export async function cancelOrder(deps: OrdersDeps, identity: Identity, id: string, reason: string | null) {
  return toOrderView((await partyMove(deps, identity, id, { type: 'cancel', reason })).order);
}

/** The renter confirms the account works: the rental clock runs from now for the hours paid. */
export async function confirmReceive(deps: OrdersDeps, identity: Identity, id: string) {
  return toOrderView((await partyMove(deps, identity, id, { type: 'confirm_receive' })).order);
}

/** The owner confirms the renter's checkout, or the renter accepts the owner's correction: the order settles as proposed. */
export async function completeCheckout(deps: OrdersDeps, identity: Identity, id: string, type: 'confirm_checkout' | 'accept_checkout') {
  return toOrderView((await partyMove(deps, identity, id, { type })).order);
}
