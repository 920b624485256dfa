import { type Identity } from '@market/shared/auth';
import { planOrThrow } from '@market/shared/planning';
import type { Move } from '../domain/moves';
import { shareWithParties } from './caller-files';
import type { OrdersDeps } from './deps';
import { decideOnPartyOrder, partyOrder } from './order-access';
import { carryOut, carryOutAtVersion, planOrderMove, type MoveDone } from './order-moves';
import { toOrderView } from './order-view';

/**
 * A party's move of its order: planned on the order as this process last wrote it, or as read, and
 * carried out if the order is still at that version, without a lock (ADR 0078, ADR 0083). A refusal
 * is decided only on the order as read. An order that moved meanwhile is read again under its lock
 * and the move decided there, as two racing moves leave one winner.
 * The files the move names are shared with both parties before anything is written, so no call to
 * the files service waits under the order's row lock (a move refused on the order as read shares
 * nothing); the grant is idempotent (a retry changes nothing), and if the move is refused under the
 * lock (another move won the race) the parties may read those files until the order ends, when
 * every grant of the order ends (ADR 0056).
 */
export async function partyMove(deps: OrdersDeps, identity: Identity, id: string, move: Move, filesToShare: string[] = []): Promise<MoveDone> {
  const seen = await decideOnPartyOrder(deps, id, identity, (order, role) => planOrderMove(deps, deps.db, order, move, { role, identity }));
  if (filesToShare.length > 0) await shareWithParties(deps, seen.order, filesToShare);
  const done =
    (await carryOutAtVersion(deps, seen.order, seen.plan, identity)) ??
    (await deps.db.transaction(async (tx) => {
      const { order, role } = await partyOrder(tx, id, identity, { lock: true });
      const plan = planOrThrow(await planOrderMove(deps, tx, order, move, { role, identity }));
      return carryOut(deps, tx, order, plan, identity);
    }));
  deps.recentOrders.remember(done.order);
  return done;
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
