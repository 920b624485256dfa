import { type counterCheckout, type RouteBody, type startCheckout as startCheckoutRoute } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { InvalidInput } from '@market/shared/errors';
import { defaultConsumption, settle, type Escrow, type Proposal } from '../domain/settlement';
import type { StoredCheckout } from '../persistence/order-repository';
import { assertOwnFiles, shareWithParties } from './caller-files';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { assertMove, moveOrder, settlementFigures } from './order-moves';
import { escrowOf, feeRateOf, toOrderView } from './order-view';
import { currentSettings } from './settings';

/** A proposal split per CONTRACT §4, or 400 naming the field that breaks an invariant. */
export function settledCheckout(escrow: Escrow, proposal: Proposal, commissionBps: number, reason: string | null, evidenceKeys: string[]): StoredCheckout {
  const result = settle(escrow, proposal, commissionBps);
  if (!result.ok) throw new InvalidInput(result.errors.map((e) => ({ path: e.path, message: e.message })));
  return { ...result.settlement, reason, evidence_keys: evidenceKeys };
}

/** The renter proposes the checkout: the consumption given, or the rent for the hours used; no deduction. */
export async function startCheckout(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof startCheckoutRoute>) {
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    assertMove(order, 'checkout', role);
    const settings = await currentSettings(tx);
    const escrow = escrowOf(order);
    const consumption = body.consumption ?? defaultConsumption(Number(order.hourly_price), escrow.rent, order.started_at ?? new Date(), new Date());
    const checkout = settledCheckout(escrow, { consumption, deposit_deduction: 0 }, feeRateOf(order, settings), body.reason ?? null, []);
    const moved = await moveOrder(deps, tx, order, {
      trigger: 'checkout',
      actor: role,
      identity,
      settings,
      reason: body.reason ?? null,
      changes: { checkout },
      eventData: settlementFigures(checkout),
    });
    return toOrderView(moved);
  });
}

/** The owner corrects the checkout with a reason; the consumption stays the renter's unless given. */
export async function counterCheckoutProposal(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof counterCheckout>) {
  const keys = body.evidence_keys ?? [];
  const userId = callerUserId(identity);
  if (userId) await assertOwnFiles(deps, userId, keys, 'evidence_keys');
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    assertMove(order, 'counter_checkout', role);
    const settings = await currentSettings(tx);
    const consumption = body.consumption ?? order.checkout?.consumption ?? Number(order.rent);
    const checkout = settledCheckout(
      escrowOf(order),
      { consumption, deposit_deduction: body.deposit_deduction },
      feeRateOf(order, settings),
      body.reason,
      keys,
    );
    await shareWithParties(deps, order, keys);
    const moved = await moveOrder(deps, tx, order, {
      trigger: 'counter_checkout',
      actor: role,
      identity,
      settings,
      reason: body.reason,
      changes: { checkout },
      eventData: settlementFigures(checkout),
    });
    return toOrderView(moved);
  });
}
