import { InvalidInput } from '@market/shared/errors';
import { overtimeOf, settle, type Escrow, type Overtime, type Proposal, type Settlement } from '@market/contracts';
import type { OrderSettings } from './settings';

// The split itself and its invariants are the contracts' (shared with the console's preview).
export {
  overtimeOf,
  platformFee,
  proposalErrors,
  settle,
  settlementErrors,
  type Escrow,
  type Overtime,
  type Proposal,
  type Settlement,
  type SettlementError,
  type SettleResult,
} from '@market/contracts';

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

/** What of a rental an overtime charge is figured from. */
export interface RentalEnd {
  ends_at: Date | null;
  hourly_price: number;
  deposit: number;
}

export const NO_OVERTIME: Overtime = { overtime_minutes: 0, overtime_fee: 0 };

/**
 * The overtime a checkout at `checkoutAt` charges (docs/rules.md §4 Overtime, ADR 0071): the started
 * minutes past `ends_at` (the renewed end, when renewed) beyond `order.grace_minutes`, at the
 * order's hourly price, from the deposit. None before the end or before the rental started.
 */
export function overtimeAt(order: RentalEnd, checkoutAt: Date, settings: OrderSettings, minuteMs: number): Overtime {
  if (order.ends_at === null) return NO_OVERTIME;
  const overtimeMs = checkoutAt.getTime() - order.ends_at.getTime();
  return overtimeOf(overtimeMs, settings['order.grace_minutes'], Number(order.hourly_price), Number(order.deposit), minuteMs);
}

/**
 * When the automatic checkout counts the overtime to: its deadline, `ends_at +
 * order.checkout_grace_minutes`, even when the scan reaches the order later, so the renter never
 * pays for the scan's delay.
 */
export function automaticCheckoutAt(endsAt: Date, now: Date, settings: OrderSettings, minuteMs: number): Date {
  const deadline = endsAt.getTime() + settings['order.checkout_grace_minutes'] * minuteMs;
  return new Date(Math.min(now.getTime(), deadline));
}

/** The overtime a stored checkout charged (checkouts stored before ADR 0071 charged none). */
export function overtimeIn(checkout: Partial<Overtime> | null): Overtime {
  return { overtime_minutes: checkout?.overtime_minutes ?? 0, overtime_fee: checkout?.overtime_fee ?? 0 };
}

/** What a closed order pays out: everything back to the renter. */
export function refundAll(escrow: Escrow): Settlement {
  return { consumption: 0, deposit_deduction: 0, ...NO_OVERTIME, refund: escrow.amount, owner_income: 0, platform_fee: 0 };
}

/** The settlement figures alone, as events carry them. */
export function settlementFigures(s: Settlement): Settlement {
  return {
    consumption: s.consumption,
    overtime_minutes: s.overtime_minutes,
    overtime_fee: s.overtime_fee,
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
