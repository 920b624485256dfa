import { PermanentRefusal } from '@market/shared/errors';
import type { WalletFaultCode } from './errors';
import type { BizType } from './ledger';

/** The figures an ending order carries (docs/rules.md §4 checkout breakdown), all integer fen. */
export interface SettlementFigures {
  amount: number;
  consumption: number;
  /** overtime rent from the deposit (ADR 0071); absent in events published before it: 0 */
  overtime_fee?: number;
  deposit_deduction: number;
  refund: number;
  owner_income: number;
  platform_fee: number;
}

export interface Payout {
  to: 'owner' | 'platform' | 'renter';
  amount: number;
  bizType: BizType;
}

/** Figures that would create or destroy money, or that do not match what the escrow holds: never paid out. */
export class UnsettleableOrder extends PermanentRefusal<WalletFaultCode> {
  constructor(message: string) {
    super('UNSETTLEABLE_ORDER', message);
  }
}

/**
 * How an escrow holding `held` is paid out per the figures: owner income, platform fee, the rest
 * back to the renter, exactly as the checkout breakdown says (zero parts move nothing). The
 * renter's part is an order refund when the whole escrow goes back, a settlement refund otherwise.
 */
export function payoutsFor(held: number, f: SettlementFigures): Payout[] {
  const overtimeFee = f.overtime_fee ?? 0;
  const parts = [f.consumption, overtimeFee, f.deposit_deduction, f.refund, f.owner_income, f.platform_fee];
  if (parts.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new UnsettleableOrder('settlement figures must be non-negative integers');
  if (f.amount !== held) throw new UnsettleableOrder(`order amount ${f.amount} differs from the ${held} held in escrow`);
  if (f.consumption + overtimeFee + f.deposit_deduction + f.refund !== f.amount) {
    throw new UnsettleableOrder('consumption + overtime_fee + deposit_deduction + refund must equal the amount paid');
  }
  if (f.owner_income + f.platform_fee !== f.consumption + overtimeFee + f.deposit_deduction) {
    throw new UnsettleableOrder('owner_income + platform_fee must equal consumption + overtime_fee + deposit_deduction');
  }
  const wholeRefund = f.refund === held;
  const payouts: Payout[] = [
    { to: 'owner', amount: f.owner_income, bizType: 'settlement_income' },
    { to: 'platform', amount: f.platform_fee, bizType: 'platform_fee' },
    { to: 'renter', amount: f.refund, bizType: wholeRefund ? 'order_refund' : 'settlement_refund' },
  ];
  return payouts.filter((p) => p.amount > 0);
}

/** Cancelled before handoff, or closed without figures: all of it back to the renter. */
export function fullRefund(held: number): Payout[] {
  return held > 0 ? [{ to: 'renter', amount: held, bizType: 'order_refund' }] : [];
}
