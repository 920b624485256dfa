import { adminHideRatingComment, adminListOrderRatings, listOrderRatings, rateOrder as rateOrderRoute } from '@market/contracts';
import { route, type RouteBinding } from '@market/shared/http';
import type { OrdersDeps } from '../application/deps';
import { hideRatingComment } from '../application/hide-rating-comment';
import { rateOrder } from '../application/rate-order';
import { adminRatings, partyRatings } from '../application/read-ratings';

/** The two-way ratings of completed orders (ADR 0066). */
export function ratingRouteBindings(deps: OrdersDeps): RouteBinding[] {
  return [
    route(rateOrderRoute, ({ params, body, identity }) => rateOrder(deps, identity, params.id, body)),
    route(listOrderRatings, ({ params, identity }) => partyRatings(deps, identity, params.id)),
    route(adminListOrderRatings, ({ params }) => adminRatings(deps, params.id)),
    route(adminHideRatingComment, ({ params, body, identity }) => hideRatingComment(deps, identity, params.id, params.ratingId, body.reason)),
  ];
}
