/**
 * How an order's escrow is split when it ends (docs/rules.md §4 checkout breakdown): the one rule
 * orders settles with and the console previews an arbitration with, so the preview can never show
 * a split the server would not make. Pure arithmetic on integer fen.
 */

/** Money of one order, in integer fen. */
export interface Escrow {
  rent: number;
  deposit: number;
  /** rent + deposit: what the renter paid into escrow */
  amount: number;
}

/**
 * Overtime charged past the grace (docs/rules.md §4 Overtime, ADR 0071): the started minutes charged
 * and their fee, from the deposit. Figured by orders from the clock, never proposed by a party.
 */
export interface Overtime {
  overtime_minutes: number;
  overtime_fee: number;
}

/** The two figures a party or an admin decides, with the overtime the checkout charged (none when absent). */
export interface Proposal extends Partial<Overtime> {
  consumption: number;
  deposit_deduction: number;
}

/** Who gets what of the escrow. */
export interface Settlement extends Overtime {
  consumption: number;
  deposit_deduction: number;
  refund: number;
  owner_income: number;
  platform_fee: number;
}

export interface SettlementError {
  path: 'consumption' | 'deposit_deduction' | 'overtime_fee' | 'settlement';
  message: string;
}

export type SettleResult = { ok: true; settlement: Settlement } | { ok: false; errors: SettlementError[] };

const BPS = 10_000;

/** The platform's cut of the rent earned (consumption, overtime fee included), rounded down to whole fen. */
export function platformFee(rentEarned: number, commissionBps: number): number {
  return Math.floor((rentEarned * commissionBps) / BPS);
}

const MINUTES_PER_HOUR = 60;

/**
 * The overtime of a rental checked out `overtimeMs` after its end (docs/rules.md §4 Overtime): every
 * started minute counts, the first `graceMinutes` are free, the rest cost the hourly price pro rata,
 * rounded down to whole fen (minutes × price / 60, so no fraction of a fen is ever charged), at most
 * the deposit. `minuteMs` is the length of a minute (shortened only in tests).
 */
export function overtimeOf(overtimeMs: number, graceMinutes: number, hourlyPrice: number, deposit: number, minuteMs: number): Overtime {
  const startedMinutes = Math.max(0, Math.ceil(overtimeMs / minuteMs));
  const charged = Math.max(0, startedMinutes - graceMinutes);
  return { overtime_minutes: charged, overtime_fee: Math.min(deposit, Math.floor((charged * hourlyPrice) / MINUTES_PER_HOUR)) };
}

const wholeFen = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** What is wrong with a proposal against this escrow; empty when it may be settled. */
export function proposalErrors(escrow: Escrow, proposal: Partial<Proposal>): SettlementError[] {
  const errors: SettlementError[] = [];
  if (!wholeFen(proposal.consumption)) {
    errors.push({ path: 'consumption', message: 'must be a whole number of fen, at least 0' });
  } else if (proposal.consumption > escrow.rent) {
    errors.push({ path: 'consumption', message: `must not exceed the rent paid (${escrow.rent})` });
  }
  const overtimeFee = proposal.overtime_fee ?? 0;
  if (!wholeFen(overtimeFee) || !wholeFen(proposal.overtime_minutes ?? 0)) {
    errors.push({ path: 'overtime_fee', message: 'overtime must be whole minutes and fen, at least 0' });
  } else if (overtimeFee > escrow.deposit) {
    errors.push({ path: 'overtime_fee', message: `must not exceed the deposit (${escrow.deposit})` });
  }
  // The overtime fee is taken from the deposit first; a deduction may claim only what is left of it.
  const depositLeft = escrow.deposit - (wholeFen(overtimeFee) ? Math.min(overtimeFee, escrow.deposit) : 0);
  if (!wholeFen(proposal.deposit_deduction)) {
    errors.push({ path: 'deposit_deduction', message: 'must be a whole number of fen, at least 0' });
  } else if (proposal.deposit_deduction > depositLeft) {
    const what = depositLeft === escrow.deposit ? 'the deposit' : 'what the deposit holds after the overtime fee';
    errors.push({ path: 'deposit_deduction', message: `must not exceed ${what} (${depositLeft})` });
  }
  return errors;
}

/** Every invariant of docs/rules.md §4 a stored breakdown must hold; empty when it holds them all. */
export function settlementErrors(escrow: Escrow, s: Settlement, commissionBps: number): SettlementError[] {
  const errors = proposalErrors(escrow, s);
  const figures = [s.refund, s.owner_income, s.platform_fee];
  if (figures.some((v) => !wholeFen(v))) errors.push({ path: 'settlement', message: 'amounts must be whole fen, at least 0' });
  if (s.consumption + s.overtime_fee + s.deposit_deduction + s.refund !== escrow.amount) {
    errors.push({ path: 'settlement', message: 'consumption + overtime_fee + deposit_deduction + refund must equal the amount paid' });
  }
  if (s.owner_income + s.platform_fee !== s.consumption + s.overtime_fee + s.deposit_deduction) {
    errors.push({ path: 'settlement', message: 'owner_income + platform_fee must equal consumption + overtime_fee + deposit_deduction' });
  }
  if (s.platform_fee !== platformFee(s.consumption + s.overtime_fee, commissionBps)) {
    errors.push({ path: 'settlement', message: 'platform_fee must follow the commission rate' });
  }
  return errors;
}

/**
 * Splits the escrow per a proposal: the fee is taken from the rent earned, overtime being rent (the
 * admin config's "platform fee on settled consumption"), the owner gets the rest of it plus the
 * deduction, the renter everything else. The result is checked against every invariant before it is returned.
 */
export function settle(escrow: Escrow, proposal: Partial<Proposal>, commissionBps: number): SettleResult {
  const invalid = proposalErrors(escrow, proposal);
  if (invalid.length > 0) return { ok: false, errors: invalid };
  const { consumption, deposit_deduction, overtime_minutes = 0, overtime_fee = 0 } = proposal as Proposal;
  const fee = platformFee(consumption + overtime_fee, commissionBps);
  const settlement: Settlement = {
    consumption,
    deposit_deduction,
    overtime_minutes,
    overtime_fee,
    refund: escrow.amount - consumption - overtime_fee - deposit_deduction,
    owner_income: consumption + overtime_fee + deposit_deduction - fee,
    platform_fee: fee,
  };
  const broken = settlementErrors(escrow, settlement, commissionBps);
  return broken.length > 0 ? { ok: false, errors: broken } : { ok: true, settlement };
}
