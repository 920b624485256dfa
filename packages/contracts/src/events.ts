import { Id, Money, Timestamp } from './common';
import { z } from './zod';
import { ListingStatus, ReviewStatus, RentalHours } from './api/catalog';
import { ArbitrationResult, DisputeType, OrderStatus } from './api/orders';
import { RatingDirection, Stars } from './api/ratings';
import { AuditEntryFields } from './api/admin';
import { WithdrawalFacts } from './api/withdrawals';
import { Refund } from './api/refunds';
import type { ServiceName } from './api/route';
import { SERVICE_NAMES } from './routing';

// The `data` of every domain event (docs/rules.md §8). A change here is additive, or the event gets a
// new `version`; consumers must ignore fields they do not know, so these objects are not strict.

/**
 * Every listing event carries the whole snapshot, so orders (and anyone else) can keep a read
 * model from the events alone; `updated_at` lets a consumer drop a snapshot older than the one it holds.
 */
const ListingSnapshot = z.object({
  listing_id: Id,
  owner_id: Id,
  title: z.string(),
  game: z.string(),
  hourly_price: Money,
  deposit: Money,
  min_hours: RentalHours,
  max_hours: RentalHours.nullable(),
  status: ListingStatus,
  review_status: ReviewStatus,
  updated_at: Timestamp,
  reason: z.string().nullable().optional(),
  actor_id: Id.nullable().optional().openapi({ description: 'the owner or admin who caused it; null for the system' }),
});

const OrderSnapshot = z.object({
  order_id: Id,
  listing_id: Id,
  listing_title: z.string(),
  renter_id: Id,
  owner_id: Id,
  status: OrderStatus,
  rent: Money,
  deposit: Money,
  amount: Money,
  hours: RentalHours,
  reason: z.string().nullable().optional(),
  actor_id: Id.nullable().optional().openapi({ description: 'the party or admin who caused it; null for the timeout scan' }),
});

/** How the escrow (`amount`) is split when an order ends; the wallet settles from exactly these figures. */
const Settlement = z.object({
  consumption: Money,
  /** absent in events published before ADR 0071: no overtime */
  overtime_minutes: z.number().int().min(0).optional(),
  overtime_fee: Money.optional().openapi({ description: 'part of the escrow earned as overtime rent; absent: 0' }),
  deposit_deduction: Money,
  refund: Money,
  owner_income: Money,
  platform_fee: Money,
});

export const eventDataSchemas = {
  'user.registered': z.object({
    user_id: Id,
    phone_masked: z.string(),
    nickname: z.string(),
    registered_at: Timestamp,
  }),
  'user.frozen': z.object({
    user_id: Id,
    reason: z.string(),
    frozen_by: Id,
    frozen_at: Timestamp,
  }),
  'user.unfrozen': z.object({
    user_id: Id,
    unfrozen_by: Id,
    unfrozen_at: Timestamp,
  }),

  'listing.submitted': ListingSnapshot,
  'listing.approved': ListingSnapshot,
  'listing.rejected': ListingSnapshot,
  'listing.offlined': ListingSnapshot,
  'listing.updated': ListingSnapshot,
  'listing.deleted': ListingSnapshot,
  'listing.marked_abnormal': ListingSnapshot,
  /** back online without review: its owner was unfrozen and the freeze had taken it offline */
  'listing.restored': ListingSnapshot,
  /** a rental that handed the account over ended: the owner must change the password before it is rented again (ADR 0066) */
  'listing.rotation_required': ListingSnapshot.extend({ order_id: Id }),

  'order.created': OrderSnapshot,
  'order.paid': OrderSnapshot.extend({ paid_at: Timestamp }),
  'order.cancelled': OrderSnapshot,
  'order.handed_off': OrderSnapshot,
  'order.received': OrderSnapshot.extend({ started_at: Timestamp, ends_at: Timestamp }),
  'order.checkout_requested': OrderSnapshot.extend(Settlement.partial().shape),
  'order.checkout_countered': OrderSnapshot.extend(Settlement.partial().shape),
  'order.completed': OrderSnapshot.extend(Settlement.shape),
  'order.closed': OrderSnapshot.extend(Settlement.shape),
  'order.marked_abnormal': OrderSnapshot,
  /** the rental ends within order.end_reminder_minutes: the renter is reminded, once per end time */
  'order.ending_soon': z.object({
    order_id: Id,
    listing_id: Id,
    listing_title: z.string(),
    renter_id: Id,
    owner_id: Id,
    ends_at: Timestamp,
  }),
  /** the renter extended the rental: the snapshot's hours, rent and amount are the renewed totals */
  'order.renewed': OrderSnapshot.extend({
    renewal_id: Id,
    added_hours: RentalHours,
    added_rent: Money,
    previous_ends_at: Timestamp,
    ends_at: Timestamp,
  }),
  /**
   * A rating became visible: both parties rated, or the window closed (ADR 0066). Once per rating;
   * the stars count whether or not the back office later hides its comment.
   */
  'order.rating_published': z.object({
    rating_id: Id,
    order_id: Id,
    listing_id: Id,
    owner_id: Id,
    renter_id: Id,
    direction: RatingDirection,
    stars: Stars,
    published_at: Timestamp,
  }),

  'dispute.opened': z.object({
    dispute_id: Id,
    order_id: Id,
    renter_id: Id,
    owner_id: Id,
    type: DisputeType,
    raised_by: Id,
    reason: z.string(),
  }),
  'dispute.resolved': z.object({
    dispute_id: Id,
    order_id: Id,
    /** both parties, so notify can tell each of them from the event alone */
    renter_id: Id,
    owner_id: Id,
    result: ArbitrationResult,
    note: z.string(),
    /** the deciding admin; null when the default resolution of an overdue dispute applied (ADR 0029) */
    resolved_by: Id.nullable(),
    breakdown: Settlement.nullable().optional(),
  }),

  'payment.succeeded': z.object({
    payment_id: Id,
    user_id: Id,
    amount: Money,
    purpose: z.enum(['recharge', 'order']),
    order_id: Id.nullable(),
    gateway_txn_id: z.string().nullable().openapi({ description: 'null for an order paid from the wallet balance' }),
    paid_at: Timestamp,
  }),

  'payment.failed': z.object({
    payment_id: Id,
    user_id: Id,
    amount: Money,
    purpose: z.literal('recharge'),
    gateway_txn_id: z.string().nullable(),
    failed_at: Timestamp,
  }),
  'payment.expired': z.object({
    payment_id: Id,
    user_id: Id,
    amount: Money,
    purpose: z.literal('recharge'),
    expired_at: Timestamp,
  }),

  /**
   * The ledger moved for an ending order: published by the wallet in the transaction that paid the
   * escrow out, with the fen that went to each party, so whatever tells people about the money
   * (notify) only ever tells what happened.
   */
  'wallet.settled': z.object({
    order_id: Id,
    renter_id: Id,
    owner_id: Id,
    listing_id: Id,
    listing_title: z.string(),
    ended_by: z.enum(['order.completed', 'order.closed', 'order.cancelled']),
    outcome: z.enum(['settled', 'refunded']).openapi({ description: '`refunded`: the whole escrow went back to the renter' }),
    released: Money.openapi({ description: 'what the escrow held and paid out, in fen' }),
    owner_income: Money,
    platform_fee: Money,
    refund: Money,
    overtime_fee: Money.optional().openapi({ description: 'the overtime rent within owner_income + platform_fee (ADR 0071); absent when there was none' }),
    settled_at: Timestamp,
  }),

  /**
   * Something an operator must look at (an event that keeps failing, money waiting): the back
   * office's notification channel. Any service raises one through its outbox; notify keeps it for
   * the back office (`GET /api/admin/notifications`).
   */
  'ops.alert': z.object({
    alert: z.string().openapi({ example: 'EVENT_WAITING' }),
    severity: z.enum(['info', 'warning', 'critical']),
    service: z.string(),
    summary: z.string(),
    subject_type: z.string(),
    subject_id: z.string().nullable(),
    detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    raised_at: Timestamp,
  }),
  // a withdrawal as it stands after the move the event announces
  'withdrawal.requested': WithdrawalFacts,
  'withdrawal.approved': WithdrawalFacts.extend({ approved_by: Id.nullable().openapi({ description: 'null when approved automatically' }) }),
  'withdrawal.rejected': WithdrawalFacts.extend({ rejected_by: Id }),
  'withdrawal.paid': WithdrawalFacts,
  'withdrawal.failed': WithdrawalFacts,
  // paid, then returned by the provider (Alipay's REFUND): the amount is back on the user's balance
  'withdrawal.reversed': WithdrawalFacts,
  // a refund as it stands after the move the event announces
  'refund.requested': Refund,
  'refund.rejected': Refund,
  'refund.refunded': Refund,
  'refund.failed': Refund,

  'system_config.changed': z.object({
    key: z.string(),
    value: z.unknown(),
    updated_by: Id,
    updated_at: Timestamp,
  }),

  'audit.recorded': z.object({ ...AuditEntryFields, occurred_at: Timestamp }),
} as const;

export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

/**
 * Events that move money where they are consumed: every event the wallet settles an escrow from.
 * A consumer never parks one of these because of a transient failure (database down, lock
 * timeout, broker hiccup): it retries with capped backoff for as long as it takes and tells the
 * back office that it is waiting (ADR 0026). Only a permanent failure parks it.
 */
export const MONEY_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>(['order.completed', 'order.closed', 'order.cancelled']);

/**
 * Who may publish each type (ADR 0011, 0054). Each producer's exchange is bound into the queues of
 * the types' consumers; its broker user may publish there only its own types' routing keys
 * (`scripts/provision-broker.mjs`), and a consumer parks an event whose broker-checked sender is not
 * the envelope's producer or not an owner. Every service writes audit entries and may raise an
 * operator alert, so `audit.recorded` and `ops.alert` have them all.
 */
export const eventProducers: { readonly [T in EventType]: readonly ServiceName[] } = {
  'user.registered': ['identity'],
  'user.frozen': ['identity'],
  'user.unfrozen': ['identity'],
  'listing.submitted': ['catalog'],
  'listing.approved': ['catalog'],
  'listing.rejected': ['catalog'],
  'listing.offlined': ['catalog'],
  'listing.updated': ['catalog'],
  'listing.deleted': ['catalog'],
  'listing.marked_abnormal': ['catalog'],
  'listing.restored': ['catalog'],
  'listing.rotation_required': ['catalog'],
  'order.created': ['orders'],
  'order.paid': ['orders'],
  'order.cancelled': ['orders'],
  'order.handed_off': ['orders'],
  'order.received': ['orders'],
  'order.checkout_requested': ['orders'],
  'order.checkout_countered': ['orders'],
  'order.completed': ['orders'],
  'order.closed': ['orders'],
  'order.marked_abnormal': ['orders'],
  'order.renewed': ['orders'],
  'order.ending_soon': ['orders'],
  'order.rating_published': ['orders'],
  'dispute.opened': ['orders'],
  'dispute.resolved': ['orders'],
  'payment.succeeded': ['wallet'],
  'payment.failed': ['wallet'],
  'payment.expired': ['wallet'],
  'wallet.settled': ['wallet'],
  'ops.alert': SERVICE_NAMES,
  'withdrawal.requested': ['wallet'],
  'withdrawal.approved': ['wallet'],
  'withdrawal.rejected': ['wallet'],
  'withdrawal.paid': ['wallet'],
  'withdrawal.failed': ['wallet'],
  'withdrawal.reversed': ['wallet'],
  'refund.requested': ['wallet'],
  'refund.rejected': ['wallet'],
  'refund.refunded': ['wallet'],
  'refund.failed': ['wallet'],
  'system_config.changed': ['admin'],
  'audit.recorded': SERVICE_NAMES,
};

/**
 * Which types each service consumes: the provisioning (and a process whose broker user may) declares
 * every service's queue and bindings from this before any relay publishes (ADR 0011, 0054), so an
 * event is never published before the queue that wants it exists. A service's handlers must be a
 * subset of its entry (checked at start).
 */
export const eventConsumers: { readonly [S in ServiceName]: readonly EventType[] } = {
  identity: [],
  catalog: [
    'user.frozen',
    'user.unfrozen',
    'order.created',
    'order.handed_off',
    'order.cancelled',
    'order.closed',
    'order.completed',
    'order.rating_published',
  ],
  orders: ['system_config.changed'],
  wallet: ['order.completed', 'order.closed', 'order.cancelled'],
  // an order's attachments stop being readable by its parties once it ends (ADR 0056)
  files: ['order.completed', 'order.closed', 'order.cancelled'],
  notify: [
    'user.frozen',
    'user.unfrozen',
    'listing.submitted',
    'listing.approved',
    'listing.rejected',
    'listing.offlined',
    'listing.deleted',
    'listing.marked_abnormal',
    'listing.rotation_required',
    'order.paid',
    'order.cancelled',
    'order.handed_off',
    'order.checkout_requested',
    'order.checkout_countered',
    'order.completed',
    'order.closed',
    'order.marked_abnormal',
    'order.renewed',
    'order.ending_soon',
    'dispute.opened',
    'dispute.resolved',
    'payment.succeeded',
    'payment.failed',
    'wallet.settled',
    'ops.alert',
    'withdrawal.rejected',
    'withdrawal.paid',
    'withdrawal.failed',
    'withdrawal.reversed',
    'refund.rejected',
    'refund.refunded',
    'refund.failed',
  ],
  admin: ['audit.recorded'],
};
