import { InvalidInput } from '@market/shared/errors';
import { settle, type Escrow, type Proposal, type Settlement } from '@market/contracts';

// The split itself and its invariants are the contracts' (shared with the console's preview).
export { platformFee, proposalErrors, settle, settlementErrors, type Escrow, type Proposal, type Settlement, type SettlementError, type SettleResult } from '@market/contracts';

/** The checkout breakdown as stored: evidence as file keys, shown as URLs. */
export interface StoredCheckout extends Settlement {
  reason: string | null;
  evidence_keys: string[];
}

const HOUR_MS = 3_600_000;

/** Rent and amount of an order, or null when they would exceed the largest amount a field may hold. */
export function priceOrder(hours: number, hourlyPrice: number, deposit: number, maxMoney: number): Escrow | null {
  const rent = hours * hourlyPrice;
  const amount = rent + deposit;
  if (!Number.isSafeInteger(amount) || rent > maxMoney || amount > maxMoney) return null;
  return { rent, deposit, amount };
}

/**
 * The renter's default proposal: the rent for the hours used, a started hour counting whole, never
 * more than the rent paid.
 */
export function defaultConsumption(hourlyPrice: number, rent: number, startedAt: Date, now: Date): number {
  const usedHours = Math.max(0, Math.ceil((now.getTime() - startedAt.getTime()) / HOUR_MS));
  return Math.min(rent, usedHours * hourlyPrice);
}

/**
 * The consumption an unanswered checkout completes with (ADR 0029): the renter's proposal, but never
 * less than the rent for the hours the account was actually in use up to the checkout (rounded up to
 * whole hours at the listed price, at most the rent), so a proposal of 0 after a full rental does
 * not become the settlement by the owner's silence.
 */
export function timedOutConsumption(proposed: number, hourlyPrice: number, rent: number, startedAt: Date | null, checkoutAt: Date): number {
  if (startedAt === null) return proposed;
  return Math.max(proposed, defaultConsumption(hourlyPrice, rent, startedAt, checkoutAt));
}

/** What a closed order pays out: everything back to the renter. */
export function refundAll(escrow: Escrow): Settlement {
  return { consumption: 0, deposit_deduction: 0, refund: escrow.amount, owner_income: 0, platform_fee: 0 };
}

/** The settlement figures alone, as events carry them. */
export function settlementFigures(s: Settlement): Settlement {
  return {
    consumption: s.consumption,
    deposit_deduction: s.deposit_deduction,
    refund: s.refund,
    owner_income: s.owner_income,
    platform_fee: s.platform_fee,
  };
}

/** A proposal split per docs/rules.md §4 as the order stores it, or the refusal naming the field that breaks an invariant. */
export function settledCheckout(
  escrow: Escrow,
  proposal: Proposal,
  commissionBps: number,
  reason: string | null,
  evidenceKeys: string[],
): StoredCheckout | InvalidInput {
  const result = settle(escrow, proposal, commissionBps);
  if (!result.ok) return new InvalidInput(result.errors.map((e) => ({ path: e.path, message: e.message })));
  return { ...result.settlement, reason, evidence_keys: evidenceKeys };
}
