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

/** The two figures a party or an admin decides. */
export interface Proposal {
  consumption: number;
  deposit_deduction: number;
}

/** Who gets what of the escrow. */
export interface Settlement extends Proposal {
  refund: number;
  owner_income: number;
  platform_fee: number;
}

export interface SettlementError {
  path: 'consumption' | 'deposit_deduction' | 'settlement';
  message: string;
}

export type SettleResult = { ok: true; settlement: Settlement } | { ok: false; errors: SettlementError[] };

const BPS = 10_000;

/** The platform's cut of the consumption, rounded down to whole fen. */
export function platformFee(consumption: number, commissionBps: number): number {
  return Math.floor((consumption * commissionBps) / BPS);
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
  if (!wholeFen(proposal.deposit_deduction)) {
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
  if (figures.some((v) => !wholeFen(v))) errors.push({ path: 'settlement', message: 'amounts must be whole fen, at least 0' });
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

/**
 * Splits the escrow per a proposal: the fee is taken from the consumption (the admin config's
 * "platform fee on settled consumption"), the owner gets the rest of it plus the deduction, the
 * renter everything else. The result is checked against every invariant before it is returned.
 */
export function settle(escrow: Escrow, proposal: Partial<Proposal>, commissionBps: number): SettleResult {
  const invalid = proposalErrors(escrow, proposal);
  if (invalid.length > 0) return { ok: false, errors: invalid };
  const { consumption, deposit_deduction } = proposal as Proposal;
  const fee = platformFee(consumption, commissionBps);
  const settlement: Settlement = {
    consumption,
    deposit_deduction,
    refund: escrow.amount - consumption - deposit_deduction,
    owner_income: consumption + deposit_deduction - fee,
    platform_fee: fee,
  };
  const broken = settlementErrors(escrow, settlement, commissionBps);
  return broken.length > 0 ? { ok: false, errors: broken } : { ok: true, settlement };
}
