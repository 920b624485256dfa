import {
  listingById,
  listingCredentials,
  listingStats as listingStatsRoute,
  recordRefusedOpenUpload,
} from '@market/contracts';
import { internalRoute, type InternalBinding } from '@market/shared/http';
import type { CatalogDeps } from '../application/deps';
import { openListingCredentials } from '../application/open-credentials';
import { listingForOrder, listingStats } from '../application/read-listings';
import { recordRefusedDelivery } from '../application/record-refused-delivery';

/** `/internal/*` for other services, by their shared contracts. */
export function catalogInternalRoutes(deps: CatalogDeps): InternalBinding[] {
  return [
    internalRoute(listingStatsRoute, () => listingStats(deps)),
    internalRoute(listingById, ({ params }) => listingForOrder(deps, params.id)),
    internalRoute(recordRefusedOpenUpload, ({ body }) => recordRefusedDelivery(deps, body)),
    internalRoute(listingCredentials, ({ params }) => openListingCredentials(deps, params.id)),
  ];
}
