import { MAX_MONEY_FEN, type createOrder as createOrderRoute, type RouteBody } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { auditEvent, type EventToWrite } from '@market/shared/events';
import { Forbidden, InvalidInput, NotFound, type DomainError } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { ListingAwaitingRotation, ListingUnavailable, ListingUnavailableToYou, RealnameRequired, RenterFrozen, RenterLimitReached } from '../domain/errors';
import { orderSnapshot } from '../domain/order';
import { priceOrder } from '../domain/settlement';
import type { OrderSettings } from '../domain/settings';
import { deadlineOf } from '../domain/timeouts';
import { orderInsert, ONE_ACTIVE_PER_LISTING, type NewOrder, type OrderRow } from '../persistence/order-repository';
import { handedOverEndSince } from '../persistence/rotation-queries';
import type { OrdersDeps } from './deps';
import type { ListingView } from './ports';
import { toOrderView } from './order-view';
import { balanceExempt, holdRenterLimits, renterBeforeCreate } from './renter-limits';

function isActiveOrderConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e.driverError?.code ?? e.code;
  const constraint = e.driverError?.constraint ?? e.constraint;
  return code === '23505' && constraint === ONE_ACTIVE_PER_LISTING;
}

/**
 * Why the renter may not rent at all, or null. Only the real-name rule needs identity's answer; a
 * freeze is read where the gateway reads it on every request, identity's block, which stands before
 * the freeze commits: one Redis read instead of a call to identity (ADR 0078).
 */
async function renterRefusal(deps: OrdersDeps, renterId: string, settings: OrderSettings): Promise<DomainError | null> {
  if (!settings['order.require_realname']) return (await deps.blocks.frozen(renterId)) ? new RenterFrozen() : null;
  const standing = await deps.users.standing(renterId);
  if (!standing) return new Forbidden('this account cannot rent');
  if (standing.frozen) return new RenterFrozen();
  return standing.realname_status === 'verified' ? null : new RealnameRequired();
}

/**
 * A renter orders a listing for `hours`: title, price and deposit are copied from catalog now.
 * Whether the listing is free is decided here, by the partial unique index over active orders (of
 * renters racing for one listing exactly one insert commits), not by catalog's `rented` flag: that
 * flag follows order events and may still say rented for a moment after an order ended (ADR 0006).
 */
export async function createOrder(deps: OrdersDeps, identity: Identity, body: RouteBody<typeof createOrderRoute>) {
  const renterId = callerUserId(identity);
  if (!renterId) throw new Forbidden('this account cannot rent');
  if (!isUuid(body.listing_id)) throw new NotFound('listing not found');
  const settings = await deps.settings.current(deps.db);
  const [refusal, listing] = await Promise.all([renterRefusal(deps, renterId, settings), deps.listings.byId(body.listing_id)]);
  if (refusal) throw refusal;
  if (!listing || listing.status === 'deleted') throw new NotFound('listing not found');
  if (listing.owner_id === renterId) throw new Forbidden('you cannot rent your own listing');
  if (listing.status !== 'online') throw new ListingUnavailable();
  if (listing.awaiting_rotation) throw new ListingAwaitingRotation();
  if (body.hours < listing.min_hours || (listing.max_hours !== null && body.hours > listing.max_hours)) {
    const bounds = listing.max_hours === null ? `at least ${listing.min_hours}` : `between ${listing.min_hours} and ${listing.max_hours}`;
    throw new InvalidInput([{ path: 'hours', message: `must be ${bounds} for this listing` }]);
  }
  const escrow = priceOrder(body.hours, listing.hourly_price, listing.deposit, MAX_MONEY_FEN);
  if (!escrow) throw new InvalidInput([{ path: 'hours', message: 'rent and deposit together exceed the largest amount an order may hold' }]);
  const now = new Date();
  const { blocked, limited, balanceAsked } = await renterBeforeCreate(deps, renterId, listing.owner_id, settings, now);
  // a blocked renter hears only that the listing is not for them, never who decided (ADR 0065)
  if (blocked) throw new ListingUnavailableToYou();
  const place = (heldToLimits: boolean) => placeOrder(deps, identity, { renterId, listing, hours: body.hours, escrow, settings, now, heldToLimits });
  try {
    return await place(limited);
  } catch (err) {
    // A race took the renter's last slot after the count that did not ask the wallet: asked now,
    // with the transaction rolled back and the lock released, and placed again if the balance exempts.
    if (err instanceof RenterLimitReached && !balanceAsked && (await balanceExempt(deps, renterId, settings))) return place(false);
    throw err;
  }
}

interface Placement {
  renterId: string;
  listing: ListingView;
  hours: number;
  escrow: NonNullable<ReturnType<typeof priceOrder>>;
  settings: OrderSettings;
  now: Date;
  /** whether the renter's limits are counted again under their lock */
  heldToLimits: boolean;
}

/**
 * Writes the order with its events. Where the renter's limits hold, they are counted under their
 * lock first, and where the listing requires a password change, the last rental's end is checked
 * after the insert: the order is written in a transaction with them. Otherwise the insert and its
 * events are the whole write, one statement that commits itself (ADR 0084): no BEGIN, no COMMIT.
 */
async function placeOrder(deps: OrdersDeps, identity: Identity, { renterId, listing, hours, escrow, settings, now, heldToLimits }: Placement) {
  const order: NewOrder = {
    id: uuidv7(),
    listing_id: listing.id,
    listing_title: listing.title,
    renter_id: renterId,
    owner_id: listing.owner_id,
    hours,
    hourly_price: listing.hourly_price,
    ...escrow,
    status: 'pending_payment',
    status_changed_at: now,
    deadline_at: deadlineOf({ status: 'pending_payment', status_changed_at: now, ends_at: null }, settings, deps.minuteMs),
    created_at: now,
    // no credentials stored now, none to hand over at payment: the pay asks catalog nothing (ADR 0078)
    credentials_checked_at: listing.credentials_stored ? null : now,
  };
  const events: EventToWrite[] = [
    { type: 'order.created', data: orderSnapshot(order, null, renterId) },
    auditEvent(identity, {
      action: 'order.create',
      biz_type: 'order',
      biz_id: order.id,
      detail: { listing_id: order.listing_id, hours: order.hours, amount: order.amount },
    }),
  ];
  try {
    const placed =
      heldToLimits || listing.require_rotation
        ? await deps.db.transaction(async (tx) => {
            if (heldToLimits) await holdRenterLimits(tx, renterId, settings, now);
            // the insert with its events, one round trip (ADR 0077); a refusal below rolls both back
            const [row] = await deps.events.publishAllWith<OrderRow>(tx, orderInsert(order), events);
            // Catalog learns of the last rental's end from its event, a moment late; the end itself is ours.
            // Read after the insert, which waited for any order still holding the listing, so that end is seen.
            const rotatedAt = listing.rotation_confirmed_at === null ? null : new Date(listing.rotation_confirmed_at);
            if (listing.require_rotation && (await handedOverEndSince(tx, listing.id, rotatedAt))) throw new ListingAwaitingRotation();
            return row!;
          })
        : (await deps.events.commitAllWith<OrderRow>(deps.db, orderInsert(order), events))[0]!;
    deps.recentOrders.remember(placed);
    return toOrderView(placed);
  } catch (err) {
    if (isActiveOrderConflict(err)) throw new ListingUnavailable();
    throw err;
  }
}
