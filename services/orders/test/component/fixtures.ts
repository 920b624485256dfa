import { v7 as uuidv7 } from 'uuid';
import {
  chargeOrderEscrow,
  chargeOrderRenewal,
  listingById,
  listingCredentials,
  orderChargeStatus,
  renewalChargeStatus,
  systemConfigValues,
  userAvailableBalance,
  userStanding,
  type InternalResult,
} from '@market/contracts';
import { answer, refuse, type Answer } from '@market/testkit';

export type Listing = Omit<InternalResult<typeof listingById>, 'credentials_stored'>;
type Standing = InternalResult<typeof userStanding>;

/** A listing as catalog holds it: 800 fen an hour, 5000 deposit, 1–24 hours, online. */
export function listingOf(ownerId: string, overrides: Partial<Listing> = {}): Listing {
  const now = new Date().toISOString();
  return {
    id: uuidv7(),
    owner_id: ownerId,
    title: '王者荣耀 全英雄',
    game: '王者荣耀',
    server: null,
    description: null,
    hourly_price: 800,
    min_hours: 1,
    max_hours: 24,
    deposit: 5000,
    screenshot_urls: [],
    status: 'online',
    review_status: 'approved',
    reject_reason: null,
    rented: false,
    allow_renewal: true,
    rating: { average: null, count: 0 },
    owner_rating: { average: null, count: 0 },
    require_rotation: false,
    awaiting_rotation: false,
    rotation_confirmed_at: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

/**
 * Orders' neighbours as the test world holds them: catalog's listings (and credentials), identity's
 * users' standing, the wallet's charges, admin's configuration. Tests change the world, or replace
 * one answer (`component.neighbours.answer`) to stage a refusal or an outage.
 */
export class Neighbourhood {
  readonly listings = new Map<string, Listing>();
  readonly credentials = new Map<string, string>();
  readonly standing = new Map<string, Partial<Standing>>();
  /** the wallet's charges by order id: the charge is keyed by order, as the real wallet keys it */
  readonly charges = new Map<string, InternalResult<typeof chargeOrderEscrow>>();
  /** users' available balances in the wallet: 100 yuan unless a test sets one, so renters are not held to the new-renter limits */
  readonly balances = new Map<string, number>();
  /** the wallet's renewal charges by renewal id */
  readonly renewals = new Map<string, InternalResult<typeof chargeOrderRenewal>>();

  renewalCharge(orderId: string, renewalId: string, renterId: string, amount: number) {
    const charge = this.renewals.get(renewalId) ?? { order_id: orderId, renewal_id: renewalId, payment_id: uuidv7(), renter_id: renterId, amount, charged_at: new Date().toISOString() };
    this.renewals.set(renewalId, charge);
    return charge;
  }

  listing(ownerId: string, overrides: Partial<Listing> = {}): Listing {
    const listing = listingOf(ownerId, overrides);
    this.listings.set(listing.id, listing);
    return listing;
  }

  answers(): Answer[] {
    return [
      answer(systemConfigValues, () => ({ items: [] })),
      answer(listingById, ({ params }) => {
        const listing = this.listings.get(params.id);
        return listing ? { ...listing, credentials_stored: this.credentials.has(params.id) } : refuse(404, 'NOT_FOUND');
      }),
      answer(listingCredentials, ({ params }) => ({ listing_id: params.id, credentials: this.credentials.get(params.id) ?? null })),
      answer(userStanding, ({ params }) => ({ user_id: params.id, frozen: false, realname_status: 'unverified' as const, ...this.standing.get(params.id) })),
      answer(chargeOrderEscrow, ({ params, body }) => {
        const charge = this.charges.get(params.id) ?? {
          order_id: params.id,
          payment_id: uuidv7(),
          renter_id: body.renter_id,
          amount: body.amount,
          charged_at: new Date().toISOString(),
        };
        this.charges.set(params.id, charge);
        return charge;
      }),
      answer(chargeOrderRenewal, ({ params, body }) => this.renewalCharge(params.id, params.renewal_id, body.renter_id, body.amount)),
      answer(renewalChargeStatus, ({ params }) => {
        const charge = this.renewals.get(params.renewal_id) ?? null;
        return { renewal_id: params.renewal_id, status: charge ? ('charged' as const) : ('not_charged' as const), charge, as_of: new Date().toISOString() };
      }),
      answer(userAvailableBalance, ({ params }) => ({ user_id: params.id, available: this.balances.get(params.id) ?? 10_000 })),
      answer(orderChargeStatus, ({ params }) => {
        const charge = this.charges.get(params.id) ?? null;
        return { order_id: params.id, status: charge ? ('charged' as const) : ('not_charged' as const), charge, as_of: new Date().toISOString() };
      }),
    ];
  }
}
