import type { PaymentRow } from '../persistence/payment-repository';

/** A recharge payment as the contract shows it: money as integer fen, times as ISO strings. */
export function toPaymentView(row: PaymentRow) {
  return {
    id: row.id,
    amount: Number(row.amount),
    channel: row.channel,
    provider: row.provider,
    status: row.status,
    pay_url: row.pay_url,
    qr_code: row.qr_code,
    expires_at: row.expires_at.toISOString(),
    paid_at: row.paid_at ? row.paid_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
  };
}
