import { type counterCheckout, type RouteBody, type startCheckout as startCheckoutRoute } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { assertOwnFiles } from './caller-files';
import type { OrdersDeps } from './deps';
import { toOrderView } from './order-view';
import { partyMove } from './party-moves';

/** The renter proposes the checkout: the consumption given, or the rent for the hours used; no deduction. */
export async function startCheckout(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof startCheckoutRoute>) {
  const move = { type: 'checkout' as const, consumption: body.consumption, reason: body.reason ?? null };
  return toOrderView((await partyMove(deps, identity, id, move)).order);
}

/** The owner corrects the checkout with a reason; the consumption stays the renter's unless given. */
export async function counterCheckoutProposal(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof counterCheckout>) {
  const keys = body.evidence_keys ?? [];
  const userId = callerUserId(identity);
  if (userId) await assertOwnFiles(deps, userId, keys, 'evidence_keys');
  const move = {
    type: 'counter_checkout' as const,
    consumption: body.consumption,
    depositDeduction: body.deposit_deduction,
    reason: body.reason,
    evidenceKeys: keys,
  };
  return toOrderView((await partyMove(deps, identity, id, move, keys)).order);
}
