import { IdParams, Timestamp, Id } from '../common';
import { z } from '../zod';
import { routesOf } from './route';
import { withTokenErrors } from './statuses';

const ratingRoute = routesOf('orders', { tags: ['ratings'] });
const adminOrderRoute = routesOf('orders', { tags: ['admin-orders'] });

/**
 * Two-way ratings of a completed order (docs/rules.md §10, ADR 0066): the renter rates the owner
 * (and so the listing), the owner rates the renter. Orders keeps them; catalog keeps the listing's
 * and the owner's averages from `order.rating_published`.
 */
export const RatingDirection = z.enum(['renter_to_owner', 'owner_to_renter']).openapi('RatingDirection');
export type RatingDirection = z.infer<typeof RatingDirection>;

/** The fixed tags of each direction: a tag of the other direction is refused (400 VALIDATION_FAILED on tags). */
export const RATING_TAGS = {
  renter_to_owner: ['as_described', 'smooth_handoff', 'responsive', 'would_rent_again', 'not_as_described', 'slow_handoff', 'account_problem'],
  owner_to_renter: ['careful_user', 'returned_on_time', 'friendly', 'would_rent_to_again', 'broke_rules', 'late_checkout', 'rude'],
} as const satisfies Record<RatingDirection, readonly string[]>;

export const RatingTag = z.enum([...RATING_TAGS.renter_to_owner, ...RATING_TAGS.owner_to_renter]).openapi('RatingTag');
export type RatingTag = z.infer<typeof RatingTag>;

export const RATING_COMMENT_MAX = 500;

export const Stars = z.number().int().min(1).max(5).openapi({ description: 'whole stars, 1 to 5' });

export const Rating = z
  .object({
    id: Id,
    order_id: Id,
    listing_id: Id,
    direction: RatingDirection,
    rater_id: Id,
    ratee_id: Id,
    stars: Stars,
    tags: z.array(RatingTag),
    comment: z.string().nullable().openapi({ description: 'null when none was given, or when hidden from this caller (comment_hidden)' }),
    comment_hidden: z.boolean().openapi({
      description: 'the back office hid the comment: its author and the back office still read it, nobody else; the stars still count',
    }),
    published: z.boolean().openapi({
      description: 'visible to the other party (and counted in averages): both have rated, or the rating window has closed',
    }),
    window_closes_at: Timestamp.openapi({
      description: 'until when the other party may still rate; an unpublished rating publishes then (fixed by the order’s first rating)',
    }),
    created_at: Timestamp,
    published_at: Timestamp.nullable(),
  })
  .openapi('Rating');

/** A rating's stars summed up: `average` to two decimals, null while `count` is 0. */
export const RatingSummary = z
  .object({
    average: z.number().min(1).max(5).nullable(),
    count: z.number().int().min(0),
  })
  .openapi('RatingSummary');

/** The summary of `count` ratings whose stars add up to `sum`: the average to two decimals, null without ratings. */
export function ratingSummary(sum: number, count: number): z.infer<typeof RatingSummary> {
  return { average: count === 0 ? null : Math.round((sum / count) * 100) / 100, count };
}

/** What the owner of a listing sees of the renter on an order (orders' view for the owner). */
export const RenterRecord = z
  .object({
    rating: RatingSummary.openapi({ description: 'the published ratings owners gave this renter' }),
    completed_orders: z.number().int().min(0).openapi({ description: 'orders this renter completed, on any listing' }),
  })
  .openapi('RenterRecord');

export const RateOrderBody = z
  .object({
    stars: Stars,
    tags: z.array(RatingTag).max(5).optional().openapi({ description: 'each at most once, from the list of the caller’s direction' }),
    comment: z.string().trim().min(1).max(RATING_COMMENT_MAX).optional(),
  })
  .strict()
  .refine((b) => b.tags === undefined || new Set(b.tags).size === b.tags.length, { message: 'each tag at most once', path: ['tags'] })
  .openapi('RateOrderBody');

const RatingList = z.object({ items: z.array(Rating) });

export const RatingParams = z.object({ id: z.string().max(100), ratingId: z.string().max(100) }).strict();

export const rateOrder = ratingRoute('post /api/orders/{id}/rating', { id: 'rateOrder', auth: 'user',
  summary: 'Rate the other party of a completed order, once',
  description:
    'The renter rates the owner (direction renter_to_owner, counted for the listing and its owner), the owner rates the renter ' +
    '(owner_to_renter). Only a completed order, within rating.window_days of its completion: 409 ORDER_NOT_COMPLETED before, ' +
    '409 RATING_WINDOW_CLOSED after; a second rating by the same party is 409 ALREADY_RATED (of two sent at once exactly one wins). ' +
    'A caller who is not a party gets 404. The rating stays unpublished — seen by its author and the back office only — until ' +
    'the other party has rated too or the window closes.',
  params: IdParams,
  body: RateOrderBody,
  success: { status: 201, description: 'the rating', schema: Rating }, errors: withTokenErrors(400, 404, 409),
});

export const listOrderRatings = ratingRoute('get /api/orders/{id}/ratings', { id: 'listOrderRatings', auth: 'user',
  summary: 'The ratings of an order the caller is a party to',
  description: 'The caller’s own rating, and the other party’s once published. A hidden comment is shown to its author only. Anyone else gets 404.',
  params: IdParams,
  success: { status: 200, description: 'at most two ratings, oldest first', schema: RatingList }, errors: withTokenErrors(404),
});

export const adminListOrderRatings = adminOrderRoute('get /api/admin/orders/{id}/ratings', { id: 'adminListOrderRatings', auth: 'admin', permission: 'orders.read',
  summary: 'Every rating of an order, published or not, hidden comments included',
  params: IdParams,
  success: { status: 200, description: 'the ratings, oldest first', schema: RatingList }, errors: withTokenErrors(404),
});

export const adminHideRatingComment = adminOrderRoute('post /api/admin/orders/{id}/ratings/{ratingId}/hide-comment', { id: 'adminHideRatingComment', auth: 'admin', permission: 'ratings.moderate',
  summary: 'Hide an abusive rating comment (audited); the stars still count',
  description:
    'The comment is kept for its author and the back office and hidden from everyone else. A rating without a comment, or one ' +
    'hidden already, is 409 INVALID_STATE. Audited with the reason.',
  params: RatingParams,
  body: z.object({ reason: z.string().trim().min(1).max(500) }).strict(),
  success: { status: 200, description: 'the rating, its comment hidden', schema: Rating }, errors: withTokenErrors(400, 404, 409),
});

export const ratingRoutes = [rateOrder, listOrderRatings, adminListOrderRatings, adminHideRatingComment];
