import { fileUrl, type Order, type z } from '@market/contracts';
import type { OrderRow } from '../persistence/order-repository';

export function toOrderView(row: OrderRow): z.infer<typeof Order> {
  return {
    id: row.id,
    listing_id: row.listing_id,
    listing_title: row.listing_title,
    renter_id: row.renter_id,
    owner_id: row.owner_id,
    hours: row.hours,
    hourly_price: Number(row.hourly_price),
    rent: Number(row.rent),
    deposit: Number(row.deposit),
    amount: Number(row.amount),
    status: row.status,
    paid_at: row.paid_at?.toISOString() ?? null,
    started_at: row.started_at?.toISOString() ?? null,
    ends_at: row.ends_at?.toISOString() ?? null,
    checkout: row.checkout
      ? {
          consumption: row.checkout.consumption,
          overtime_minutes: row.checkout.overtime_minutes,
          overtime_fee: row.checkout.overtime_fee,
          deposit_deduction: row.checkout.deposit_deduction,
          refund: row.checkout.refund,
          owner_income: row.checkout.owner_income,
          platform_fee: row.checkout.platform_fee,
          reason: row.checkout.reason,
          evidence_urls: row.checkout.evidence_keys.map(fileUrl),
        }
      : null,
    dispute_id: row.dispute_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    deadline_at: row.deadline_at?.toISOString() ?? null,
  };
}
