import { ArbitrateBody, z } from '@market/contracts';

/** The money of an order a breakdown splits (integer fen). */
export interface Escrow {
  rent: number;
  deposit: number;
  amount: number;
}

export interface Preview {
  consumption: number;
  deposit_deduction: number;
  owner_income: number;
  platform_fee: number;
  refund: number;
}

/** The breakdown body exactly as the server's contract declares it (whole, non-negative fen; nothing else). */
const BreakdownShape = ArbitrateBody.shape.breakdown.unwrap();

/**
 * The contract's breakdown plus the checkout invariants that depend on the order, worded and
 * pathed as the server words them (400 VALIDATION_FAILED on breakdown.consumption /
 * breakdown.deposit_deduction): consumption ≤ rent, deposit_deduction ≤ deposit.
 */
export function breakdownSchema(escrow: Escrow) {
  return BreakdownShape.superRefine((b, ctx) => {
    if (b.consumption > escrow.rent) ctx.addIssue({ code: 'custom', path: ['consumption'], message: `must not exceed the rent paid (${escrow.rent})` });
    if (b.deposit_deduction > escrow.deposit) {
      ctx.addIssue({ code: 'custom', path: ['deposit_deduction'], message: `must not exceed the deposit (${escrow.deposit})` });
    }
  });
}

export type Breakdown = z.infer<typeof BreakdownShape>;

/** The platform's cut of the consumption, rounded down to whole fen (as the server's checkout). */
export const platformFee = (consumption: number, commissionBps: number) => Math.floor((consumption * commissionBps) / 10_000);

/** Who gets what if this breakdown is applied; the errors of each field when it cannot be. */
export function previewBreakdown(
  escrow: Escrow,
  input: unknown,
  commissionBps: number,
): { ok: true; preview: Preview } | { ok: false; errors: Partial<Record<'consumption' | 'deposit_deduction', string>> } {
  const parsed = breakdownSchema(escrow).safeParse(input);
  if (!parsed.success) {
    const errors: Partial<Record<'consumption' | 'deposit_deduction', string>> = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as 'consumption' | 'deposit_deduction';
      errors[field] ??= issue.message;
    }
    return { ok: false, errors };
  }
  const { consumption, deposit_deduction } = parsed.data;
  const fee = platformFee(consumption, commissionBps);
  return {
    ok: true,
    preview: {
      consumption,
      deposit_deduction,
      platform_fee: fee,
      owner_income: consumption + deposit_deduction - fee,
      refund: escrow.amount - consumption - deposit_deduction,
    },
  };
}
