import {
  adminApproveListing,
  adminGetListing,
  adminGetOpenUpload,
  adminListOpenUploads,
  adminListListings,
  adminListPendingListings,
  adminMarkListingAbnormal,
  adminOfflineListing,
  adminRejectListing,
  createListing as createListingRoute,
  deleteListing as deleteListingRoute,
  getDefaultUploadScreenshot,
  getListing,
  getSellerListing,
  listListings,
  listSellerListings,
  openUploadListings,
  submitListingForReview,
  updateListing as updateListingRoute,
  confirmListingRotation,
} from '@market/contracts';
import { route, type RouteBinding } from '@market/shared/http';
import { createListing } from '../application/create-listing';
import { deleteListing } from '../application/delete-listing';
import type { CatalogDeps } from '../application/deps';
import { moderateListing } from '../application/moderate-listing';
import {
  adminListings,
  listingInAnyState,
  pendingListings,
  publicListing,
  searchListings,
  sellerListing,
  sellerListings,
} from '../application/read-listings';
import { openUploadRecord, openUploadRecords } from '../application/read-open-uploads';
import { receiveOpenUpload } from '../application/receive-open-upload';
import { submitListing } from '../application/submit-listing';
import { updateListing } from '../application/update-listing';
import { confirmRotation } from '../application/rotation';
import { sendStaticImage, type StaticImage } from './default-screenshot';
import { readDeliveredBody } from './open-upload-delivery';

export function catalogRouteBindings(deps: CatalogDeps, defaultScreenshot: StaticImage): RouteBinding[] {
  return [
    route(listListings, ({ query }) => searchListings(deps, query)),
    route(getDefaultUploadScreenshot, async ({ req, res }) => sendStaticImage(defaultScreenshot, req, res)),
    route(getListing, ({ params, identity }) => publicListing(deps, identity, params.id)),
    route(createListingRoute, ({ body, identity }) => createListing(deps, identity, body)),
    route(updateListingRoute, ({ params, body, identity }) => updateListing(deps, identity, params.id, body)),
    route(confirmListingRotation, ({ params, identity }) => confirmRotation(deps, identity, params.id)),
    route(submitListingForReview, ({ params, identity }) => submitListing(deps, identity, params.id)),
    route(deleteListingRoute, ({ params, identity }) => deleteListing(deps, identity, params.id)),
    route(listSellerListings, ({ query, identity }) => sellerListings(deps, identity, query)),
    route(getSellerListing, ({ params, identity }) => sellerListing(deps, identity, params.id)),
    route(openUploadListings, async ({ identity, req, res, log }) =>
      receiveOpenUpload(deps, {
        ...(await readDeliveredBody(req, deps.openUploadBodyLimit)),
        token: req.header('x-upload-token'),
        identity,
        requestId: (res.locals.requestId as string | undefined) ?? null,
        log,
      }),
    ),
    route(adminListOpenUploads, ({ query }) => openUploadRecords(deps, query)),
    route(adminGetOpenUpload, ({ params }) => openUploadRecord(deps, params.id)),
    route(adminListListings, ({ query }) => adminListings(deps, query)),
    route(adminListPendingListings, ({ query }) => pendingListings(deps, query)),
    route(adminGetListing, ({ params }) => listingInAnyState(deps, params.id)),
    route(adminApproveListing, ({ params, identity }) => moderateListing(deps, identity, params.id, 'approve', null)),
    route(adminRejectListing, ({ params, body, identity }) => moderateListing(deps, identity, params.id, 'reject', body.reason)),
    route(adminOfflineListing, ({ params, body, identity }) => moderateListing(deps, identity, params.id, 'offline', body.reason)),
    route(adminMarkListingAbnormal, ({ params, body, identity }) =>
      moderateListing(deps, identity, params.id, 'mark_abnormal', body.reason),
    ),
  ];
}
