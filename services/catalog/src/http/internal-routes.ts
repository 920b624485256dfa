import { internalRoute, listingById, listingCredentials, listingStats as listingStatsRoute, type InternalBinding } from '@market/shared';
import type { CatalogDeps } from '../application/deps';
import { openListingCredentials } from '../application/open-credentials';
import { listingInAnyState, listingStats } from '../application/read-listings';

/** `/internal/*` for other services, by their shared contracts. */
export function catalogInternalRoutes(deps: CatalogDeps): InternalBinding[] {
  return [
    internalRoute(listingStatsRoute, () => listingStats(deps)),
    internalRoute(listingById, ({ params }) => listingInAnyState(deps, params.id)),
    internalRoute(listingCredentials, ({ params }) => openListingCredentials(deps, params.id)),
  ];
}
