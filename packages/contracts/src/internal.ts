import { Id, IdParams, Money, PositiveMoney, SignedMoney, Timestamp } from './common';
import { z } from './zod';
import type { ServiceName } from './api/route';
import { splitEndpoint } from './api/endpoint';
import type { InternalCaller } from './routing';
import { Listing, ListingStatus, REFUSED_DELIVERY_BYTES_KEPT } from './api/catalog';
import { FileContentType, FileScene } from './api/files';
import { RealnameStatus } from './api/identity';
import { LedgerEntry, LedgerVerification } from './api/wallet';
import { OrderEscrowView, OrderPayment, OrderStatus } from './api/orders';

type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * A route between services under `/internal` (never public: the gateway forwards only public
 * contracts, and services accept only service assertions there). Provider and callers share this
 * one definition: the provider's input is validated with it, the caller's answer parsed with it.
 */
export interface InternalRouteContract<
  P extends AnyObject | undefined = AnyObject | undefined,
  Q extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  id: string;
  service: ServiceName;
  /** the services (or the gateway) that may call it; any other caller is refused with 403 */
  callers: readonly InternalCaller[];
  method: 'get' | 'post';
  /** below `/internal`, e.g. `/listings/{id}` */
  path: string;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
}

export function defineInternalRoute<
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType = z.ZodType,
>(route: InternalRouteContract<P, Q, B, R>): InternalRouteContract<P, Q, B, R> {
  return route;
}

/**
 * The builder of one service's internal routes: the service is stated once, here, and each route
 * gives its method and path (below `/internal`) as one string, e.g. `'get /orders/{id}/escrow'`.
 * It makes the `InternalRouteContract` `defineInternalRoute` makes of the same fields.
 */
function internalRoutesOf(service: ServiceName) {
  return <P extends AnyObject | undefined = undefined, Q extends AnyObject | undefined = undefined, B extends z.ZodType | undefined = undefined, R extends z.ZodType = z.ZodType>(
    endpoint: `${InternalRouteContract['method']} /${string}`,
    declaration: Omit<InternalRouteContract<P, Q, B, R>, 'service' | 'method' | 'path'>,
  ): InternalRouteContract<P, Q, B, R> => ({ ...declaration, ...splitEndpoint(endpoint), service });
}

export type AnyInternalRoute = InternalRouteContract<any, any, any, any>;
type InferOr<T, Fallback> = T extends z.ZodType ? z.infer<T> : Fallback;
export type InternalInput<C> =
  C extends InternalRouteContract<infer P, infer Q, infer B, any>
    ? { params: InferOr<P, undefined>; query: InferOr<Q, undefined>; body: InferOr<B, undefined> }
    : never;
export type InternalResult<C> = C extends InternalRouteContract<any, any, any, infer R> ? z.infer<R> : never;

const adminInternal = internalRoutesOf('admin');
const identityInternal = internalRoutesOf('identity');
const catalogInternal = internalRoutesOf('catalog');
const filesInternal = internalRoutesOf('files');
const walletInternal = internalRoutesOf('wallet');
const ordersInternal = internalRoutesOf('orders');

/** admin: spec open-upload rule 4 (exact username, else a nickname exactly one active admin has); 404 otherwise. */
export const matchAdminUser = adminInternal('get /admin-users/match', { id: 'matchAdminUser', callers: ['catalog'],
  query: z.object({ name: z.string().min(1).max(200) }).strict(),
  response: z.object({ id: z.uuid(), username: z.string(), nickname: z.string() }),
});

/** admin: current value of every system configuration key (orders reads its thresholds here). */
export const systemConfigValues = adminInternal('get /system-configs', { id: 'systemConfigValues', callers: ['orders', 'wallet'],
  response: z.object({
    items: z.array(
      z.object({
        key: z.string(),
        value: z.unknown(),
        // when admin last changed the value (null: never since seeded), so a reader keeps the newest (ADR 0052)
        updated_at: Timestamp.nullable(),
      }),
    ),
  }),
});

/** identity: the ordinary user who publishes open uploads for an admin, created once per admin. */
export const ensurePublisherUser = identityInternal('post /users/publisher', { id: 'ensurePublisherUser', callers: ['catalog'],
  body: z.object({ admin_id: z.uuid(), admin_username: z.string().trim().min(1).max(100) }).strict(),
  response: z.object({ user_id: z.uuid() }),
});

/** The days a service's daily figures cover: today (UTC) and the 29 days before. */
export const DASHBOARD_SERIES_DAYS = 30;

/** One UTC day of a service's daily figures; days without any are left out (the admin service fills zeros). */
const StatsDay = z.iso.date();

/** identity: ordinary phone users; `users_today` counts since 00:00 UTC; `daily` the registrations per UTC day of the last 30. */
export const userStats = identityInternal('get /users/stats', { id: 'userStats', callers: ['admin'],
  response: z.object({
    users_total: z.number().int(),
    users_today: z.number().int(),
    users_frozen: z.number().int(),
    daily: z.array(z.object({ day: StatsDay, new_users: z.number().int().min(0) })),
  }),
});

/** catalog: one listing in any state, deleted included (orders copies price, deposit and hours from it). */
export const listingById = catalogInternal('get /listings/{id}', { id: 'listingById', callers: ['orders'],
  params: IdParams,
  response: Listing.extend({
    credentials_stored: z.boolean().openapi({
      description: 'whether catalog keeps account credentials for the listing now, which paying an order placed now hands over (ADR 0078)',
    }),
  }),
});

/**
 * catalog: a delivery to the open upload that the gateway refused before catalog saw it (413 by
 * its declared length), with the first bytes the gateway read, so it is recorded like the others.
 */
export const recordRefusedOpenUpload = catalogInternal('post /open-uploads/refused', { id: 'recordRefusedOpenUpload', callers: ['gateway'],
  body: z
    .object({
      received_at: Timestamp,
      ip: z.string().max(100).nullable(),
      request_id: z.string().max(200).nullable(),
      status: z.number().int().min(400).max(499),
      code: z.string().min(1).max(50),
      reason: z.string().max(500),
      byte_count: z.number().int().min(0).openapi({ description: 'bytes the delivery declared' }),
      first_bytes: z.base64().max(Math.ceil(REFUSED_DELIVERY_BYTES_KEPT / 3) * 4),
    })
    .strict(),
  response: z.object({ id: Id }),
});

export const listingStats = catalogInternal('get /listings/stats', { id: 'listingStats', callers: ['admin'],
  response: z.object({
    listings_by_status: z.partialRecord(ListingStatus, z.number().int()),
    listings_pending_review: z.number().int(),
  }),
});

export const FileMeta = z.object({
  key: z.string(),
  owner_id: z.string(),
  scene: FileScene,
  content_type: FileContentType,
  size: z.number().int(),
  sha256: z.string(),
  created_at: Timestamp,
});

/** files: what is stored under a key; 404 when nothing is. */
export const fileMeta = filesInternal('get /files/meta', { id: 'fileMeta', callers: ['catalog', 'orders'],
  query: z.object({ key: z.string().min(1).max(200) }).strict(),
  response: FileMeta,
});

/** files: lets these users read these private files (handoff and dispute evidence of an order). */
export const attachFiles = filesInternal('post /files/attachments', { id: 'attachFiles', callers: ['orders'],
  body: z
    .object({
      keys: z.array(z.string().min(1).max(200)).min(1).max(50),
      biz_type: z.string().trim().min(1).max(40),
      biz_id: z.string().trim().min(1).max(100),
      reader_ids: z.array(z.uuid()).min(1).max(20),
    })
    .strict(),
  response: z.object({ attached: z.number().int() }),
});

/** identity: what orders checks before letting a user rent (frozen users and, when configured, unverified ones are refused). */
export const userStanding = identityInternal('get /users/{id}/standing', { id: 'userStanding', callers: ['orders'],
  params: IdParams,
  response: z.object({ user_id: z.uuid(), frozen: z.boolean(), realname_status: RealnameStatus }),
});

/**
 * identity: whether a user may be paid out to an account in `name`: frozen or not, real-name status,
 * and whether `name` is the verified real name. The real name itself never leaves identity.
 */
export const payeeCheck = identityInternal('post /users/{id}/payee-check', { id: 'payeeCheck', callers: ['wallet'],
  params: IdParams,
  body: z.object({ name: z.string().min(1).max(50) }).strict(),
  response: z.object({ user_id: z.uuid(), frozen: z.boolean(), realname_status: RealnameStatus, name_matches: z.boolean() }),
});

/**
 * catalog: the listing's stored account credentials, opened for orders to hand over by itself
 * when an order on the listing is paid; `credentials` is null when the listing has none.
 */
export const listingCredentials = catalogInternal('get /listings/{id}/credentials', { id: 'listingCredentials', callers: ['orders'],
  params: IdParams,
  response: z.object({ listing_id: Id, credentials: z.string().nullable() }),
});

export const OrderCharge = z.object({
  order_id: Id,
  payment_id: Id,
  renter_id: Id,
  amount: PositiveMoney,
  charged_at: Timestamp,
});

/**
 * wallet: moves an order's amount (rent + deposit) from the renter's available balance into the
 * order's escrow. The order id is the idempotency key: a repeat returns the first charge and
 * moves nothing. `409 INSUFFICIENT_BALANCE` when the balance is short; `409 CONFLICT` when the
 * order was already charged with another amount or renter; `409 INVALID_STATE` when the wallet has
 * already seen the order end (cancelled or closed) without a charge; `409 CHARGE_EXPIRED` when the
 * wallet meets a new charge after its `not_after` (by the wallet database's clock), so orders can
 * rule out a charge still on its way once that time has passed (ADR 0028). `payment.succeeded`
 * (purpose `order`) is written with the charge.
 */
export const chargeOrderEscrow = walletInternal('post /orders/{id}/charge', { id: 'chargeOrderEscrow', callers: ['orders'],
  params: IdParams,
  body: z.object({ renter_id: z.uuid(), owner_id: z.uuid(), amount: PositiveMoney, not_after: Timestamp.optional() }).strict(),
  response: OrderCharge,
});

/**
 * wallet: whether an order was charged, read after every charge of it already running has ended
 * (charges and this read queue on one lock per order), with the wallet database's time of the
 * answer. `void` is an order the wallet saw end before any charge. Orders' charge reconciler asks
 * this instead of guessing (ADR 0028); money:verify reads it too.
 */
export const orderChargeStatus = walletInternal('get /orders/{id}/charge-status', { id: 'orderChargeStatus', callers: ['orders'],
  params: IdParams,
  response: z.object({
    order_id: Id,
    status: z.enum(['charged', 'not_charged', 'void']),
    charge: OrderCharge.nullable(),
    as_of: Timestamp,
  }),
});

const RenewalParams = z.object({ id: Id, renewal_id: Id });

/** A renewal's extra rent charged into its order's escrow. */
export const RenewalCharge = z.object({
  order_id: Id,
  renewal_id: Id,
  payment_id: Id,
  renter_id: Id,
  amount: PositiveMoney,
  charged_at: Timestamp,
});

/**
 * wallet: moves a renewal's extra rent from the renter's available balance into the escrow of an
 * order the wallet holds, so the escrow grows by it. The renewal id is the idempotency key: a repeat
 * returns the first charge (409 CONFLICT with another amount or renter). `409 INVALID_STATE` when the
 * escrow is no longer held (the order ended), `409 INSUFFICIENT_BALANCE` when the balance is short,
 * `409 CHARGE_EXPIRED` past `not_after` by the wallet's clock (ADR 0028, ADR 0065).
 * `payment.succeeded` (purpose `order`) is written with the charge.
 */
export const chargeOrderRenewal = walletInternal('post /orders/{id}/renewals/{renewal_id}/charge', { id: 'chargeOrderRenewal', callers: ['orders'],
  params: RenewalParams,
  body: z.object({ renter_id: z.uuid(), amount: PositiveMoney, not_after: Timestamp }).strict(),
  response: RenewalCharge,
});

/**
 * wallet: whether a renewal was charged, read after any charge of its order still running has ended
 * (they queue on the order's charge lock), with the wallet database's time of the answer; orders'
 * reconciler asks this for a renewal whose charge outcome it did not learn (ADR 0065).
 */
export const renewalChargeStatus = walletInternal('get /orders/{id}/renewals/{renewal_id}/charge-status', { id: 'renewalChargeStatus', callers: ['orders'],
  params: RenewalParams,
  response: z.object({
    renewal_id: Id,
    status: z.enum(['charged', 'not_charged']),
    charge: RenewalCharge.nullable(),
    as_of: Timestamp,
  }),
});

/** wallet: a user's available balance now, for orders' renter limits (a new renter holding enough is exempt, ADR 0065). */
export const userAvailableBalance = walletInternal('get /users/{id}/available', { id: 'userAvailableBalance', callers: ['orders'],
  params: IdParams,
  response: z.object({ user_id: Id, available: Money }),
});

/** wallet: what was charged into the order's escrow and what it holds now (back office, dashboard); 404 when never charged. */
export const orderEscrow = walletInternal('get /orders/{id}/escrow', { id: 'orderEscrow', callers: ['orders', 'admin'],
  params: IdParams,
  response: z.object({ order_id: Id, charged: Money, held: Money }),
});

/**
 * wallet: the money of one order for the back office's order detail: its payment, its escrow (null
 * and no payment when the wallet never charged it) and the users' ledger entries of the order, oldest first.
 */
export const orderLedger = walletInternal('get /orders/{id}/ledger', { id: 'orderLedger', callers: ['orders'],
  params: IdParams,
  response: z.object({
    order_id: Id,
    payments: z.array(OrderPayment),
    escrow: OrderEscrowView.nullable(),
    entries: z.array(LedgerEntry),
  }),
});

const MoneyPageQuery = z
  .object({ after: z.uuid().optional(), limit: z.coerce.number().int().min(1).max(1000).default(500) })
  .strict();

/**
 * orders: the money facts of every order for money:verify, in pages by order id. `paid`: the order
 * recorded a charge; `charge_pending`: a charge's outcome is still being settled (ADR 0028);
 * `payout`: what its end should pay out of escrow (null while it runs, or when it ended unpaid).
 */
export const orderMoneyFacts = ordersInternal('get /money/orders', { id: 'orderMoneyFacts', callers: ['admin'],
  query: MoneyPageQuery,
  response: z.object({
    items: z.array(
      z.object({
        order_id: Id,
        status: OrderStatus,
        amount: Money,
        paid: z.boolean(),
        charge_pending: z.boolean(),
        ended_at: Timestamp.nullable(),
        payout: z.object({ owner: Money, platform: Money, renter: Money }).nullable(),
      }),
    ),
    next_after: Id.nullable(),
  }),
});

/**
 * wallet: the escrow of every order it has a record of, for money:verify, in pages by order id:
 * what was charged in (and in how many charges) and what went out to the owner, the platform and the
 * renter. `void`: the order ended before any charge.
 */
export const escrowMoneyFacts = walletInternal('get /money/escrows', { id: 'escrowMoneyFacts', callers: ['admin'],
  query: MoneyPageQuery,
  response: z.object({
    items: z.array(
      z.object({
        order_id: Id,
        status: z.enum(['held', 'settled', 'refunded', 'void']),
        charged: Money,
        charges: z.number().int().min(0),
        to_owner: Money,
        to_platform: Money,
        to_renter: Money,
        charged_at: Timestamp.nullable(),
        ended_at: Timestamp.nullable(),
      }),
    ),
    next_after: Id.nullable(),
  }),
});

/**
 * wallet: the double-entry checks of its ledger (every movement balances, each balance is its
 * entries, escrow and revenue accounts, every kind of hold account), the same `npm run wallet:verify`
 * prints; the back office's money check includes them. Read-only, read from one snapshot.
 */
export const ledgerVerification = walletInternal('get /money/ledger-check', { id: 'ledgerVerification', callers: ['admin'],
  response: LedgerVerification,
});

/** wallet: recharges not credited exactly once by their amount (and payments credited that are not succeeded recharges); empty when all agree. */
export const rechargeDiscrepancies = walletInternal('get /money/recharge-discrepancies', { id: 'rechargeDiscrepancies', callers: ['admin'],
  response: z.object({
    items: z.array(z.object({ payment_id: Id, status: z.string(), amount: Money, credited: SignedMoney, credits: z.number().int().min(0) })),
  }),
});

/** orders: dashboard figures; `orders_today` counts orders created since 00:00 UTC; `daily` the orders created per UTC day of the last 30. */
export const orderStats = ordersInternal('get /stats', { id: 'orderStats', callers: ['admin'],
  response: z.object({
    orders_by_status: z.record(OrderStatus, z.number().int()),
    orders_today: z.number().int(),
    disputes_open: z.number().int(),
    daily: z.array(z.object({ day: StatsDay, orders: z.number().int().min(0) })),
  }),
});

/**
 * wallet: dashboard figures from the ledger, in fen. "Today" starts at 00:00 UTC, "last 7 days" at
 * 00:00 UTC six days before. GMV is what was paid into order escrow (rent + deposit, whatever
 * later happens to it); platform revenue is the platform-fee transfers; recharges are the ones credited.
 * `daily` holds the same three sums per UTC day of the last 30.
 */
export const walletStats = walletInternal('get /stats', { id: 'walletStats', callers: ['admin'],
  response: z.object({
    gmv_today: Money,
    gmv_last_7_days: Money,
    platform_revenue_today: Money,
    platform_revenue_last_7_days: Money,
    recharges_today_count: z.number().int().min(0),
    recharges_today_amount: Money,
    daily: z.array(z.object({ day: StatsDay, gmv: Money, platform_fees: Money, recharges_amount: Money })),
  }),
});

export const allInternalRoutes: AnyInternalRoute[] = [
  payeeCheck,
  matchAdminUser,
  systemConfigValues,
  ensurePublisherUser,
  userStats,
  listingById,
  listingStats,
  recordRefusedOpenUpload,
  fileMeta,
  attachFiles,
  userStanding,
  listingCredentials,
  chargeOrderEscrow,
  orderChargeStatus,
  chargeOrderRenewal,
  renewalChargeStatus,
  userAvailableBalance,
  orderEscrow,
  orderLedger,
  orderStats,
  walletStats,
  orderMoneyFacts,
  escrowMoneyFacts,
  ledgerVerification,
  rechargeDiscrepancies,
];
