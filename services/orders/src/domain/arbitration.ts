import type { OrderTrigger } from './order-state';
import { refundAll, settle, type Escrow, type Proposal, type SettleResult } from './settlement';

export type ArbitrationResult = 'complete' | 'close' | 'mark_abnormal';

/** The state-table row each arbitration result takes. */
export const ARBITRATION_TRIGGER = {
  complete: 'arbitrate_complete',
  close: 'arbitrate_close',
  mark_abnormal: 'arbitrate_mark_abnormal',
} as const satisfies Record<ArbitrationResult, OrderTrigger>;

/**
 * What the escrow pays out on an arbitration, or null when it stays held (mark_abnormal).
 * - complete: the arbitrated breakdown, else the parties' last checkout figures, else the full rent
 *   and no deduction (the rental ran as booked);
 * - close: everything back to the renter, unless a breakdown is given; then the same split as a
 *   completion (consumption + deduction to the owner less the fee, the rest to the renter), only the
 *   order ends closed: the arbitrator decided, the checkout did not.
 * Every split is checked against the invariants of docs/rules.md §4 by `settle`.
 */
export function arbitratedSettlement(
  result: ArbitrationResult,
  escrow: Escrow,
  breakdown: Proposal | undefined,
  checkout: Proposal | null,
  commissionBps: number,
): SettleResult | null {
  switch (result) {
    case 'mark_abnormal':
      return null;
    case 'close':
      return breakdown ? settle(escrow, breakdown, commissionBps) : { ok: true, settlement: refundAll(escrow) };
    case 'complete':
      return settle(escrow, breakdown ?? checkout ?? { consumption: escrow.rent, deposit_deduction: 0 }, commissionBps);
  }
}
