import type { EscrowRow } from '../persistence/escrow-repository';

/** The charge of an order's escrow as orders sees it (a charged record: payment and time are set). */
export function toChargeView(row: EscrowRow) {
  return {
    order_id: row.order_id,
    payment_id: row.payment_id!,
    renter_id: row.renter_id,
    amount: Number(row.amount),
    charged_at: row.charged_at!.toISOString(),
  };
}
