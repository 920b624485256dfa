import { InvalidInput } from '@market/shared/errors';

/** Money of one order, in integer fen. */
export interface Escrow {
  rent: number;
  deposit: number;
  /** rent + deposit: what the renter paid into escrow */
  amount: number;
}

/** How the escrow is split when the order ends (docs/rules.md §4 checkout breakdown). */
export interface Settlement {
  consumption: number;
  deposit_deduction: number;
  refund: number;
  owner_income: number;
  platform_fee: number;
}

/** The checkout breakdown as stored: evidence as file keys, shown as URLs. */
export interface StoredCheckout extends Settlement {
  reason: string | null;
  evidence_keys: string[];
}

export interface Proposal {
  consumption: number;
  deposit_deduction: number;
}

export interface SettlementError {
  path: 'consumption' | 'deposit_deduction' | 'settlement';
  message: string;
}

const HOUR_MS = 3_600_000;
const BPS = 10_000;

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

/** The platform's cut of the consumption, rounded down to whole fen. */
export function platformFee(consumption: number, commissionBps: number): number {
  return Math.floor((consumption * commissionBps) / BPS);
}

/** What is wrong with a proposal against this escrow; empty when it may be settled. */
export function proposalErrors(escrow: Escrow, proposal: Proposal): SettlementError[] {
  const errors: SettlementError[] = [];
  if (!Number.isSafeInteger(proposal.consumption) || proposal.consumption < 0) {
    errors.push({ path: 'consumption', message: 'must be a whole number of fen, at least 0' });
  } else if (proposal.consumption > escrow.rent) {
    errors.push({ path: 'consumption', message: `must not exceed the rent paid (${escrow.rent})` });
  }
  if (!Number.isSafeInteger(proposal.deposit_deduction) || proposal.deposit_deduction < 0) {
    errors.push({ path: 'deposit_deduction', message: 'must be a whole number of fen, at least 0' });
  } else if (proposal.deposit_deduction > escrow.deposit) {
    errors.push({ path: 'deposit_deduction', message: `must not exceed the deposit (${escrow.deposit})` });
  }
  return errors;
}

/** Every invariant of docs/rules.md §4 a stored breakdown must hold; empty when it holds them all. */
export function settlementErrors(escrow: Escrow, s: Settlement, commissionBps: number): SettlementError[] {
  const errors = proposalErrors(escrow, s);
  const figures = [s.refund, s.owner_income, s.platform_fee];
  if (figures.some((v) => !Number.isSafeInteger(v) || v < 0)) errors.push({ path: 'settlement', message: 'amounts must be whole fen, at least 0' });
  if (s.consumption + s.deposit_deduction + s.refund !== escrow.amount) {
    errors.push({ path: 'settlement', message: 'consumption + deposit_deduction + refund must equal the amount paid' });
  }
  if (s.owner_income + s.platform_fee !== s.consumption + s.deposit_deduction) {
    errors.push({ path: 'settlement', message: 'owner_income + platform_fee must equal consumption + deposit_deduction' });
  }
  if (s.platform_fee !== platformFee(s.consumption, commissionBps)) {
    errors.push({ path: 'settlement', message: 'platform_fee must follow the commission rate' });
  }
  return errors;
}

export type SettleResult = { ok: true; settlement: Settlement } | { ok: false; errors: SettlementError[] };

/**
 * Splits the escrow per a proposal: the fee is taken from the consumption (the admin config's
 * "platform fee on settled consumption"), the owner gets the rest of it plus the deduction, the
 * renter everything else. The result is checked against every invariant before it is returned.
 */
export function settle(escrow: Escrow, proposal: Proposal, commissionBps: number): SettleResult {
  const invalid = proposalErrors(escrow, proposal);
  if (invalid.length > 0) return { ok: false, errors: invalid };
  const fee = platformFee(proposal.consumption, commissionBps);
  const settlement: Settlement = {
    consumption: proposal.consumption,
    deposit_deduction: proposal.deposit_deduction,
    refund: escrow.amount - proposal.consumption - proposal.deposit_deduction,
    owner_income: proposal.consumption + proposal.deposit_deduction - fee,
    platform_fee: fee,
  };
  const broken = settlementErrors(escrow, settlement, commissionBps);
  return broken.length > 0 ? { ok: false, errors: broken } : { ok: true, settlement };
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
