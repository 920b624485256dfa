import { IdParams, Page, PageQuery, QueryBoolean, ReasonBody, EmptyBody, Timestamp, Id, Money, PositiveMoney, MAX_MONEY_FEN } from '../common';
import { orNull, z } from '../zod';
import { routesOf } from './route';
import { RatingSummary } from './ratings';
import { changeById } from './change-by-id';

const listingRoute = routesOf('catalog', { tags: ['listings'] });
const sellerRoute = routesOf('catalog', { tags: ['seller'] });
const openUploadRoute = routesOf('catalog', { tags: ['open-upload'] });
const adminOpenUploadRoute = routesOf('catalog', { tags: ['admin-open-uploads'] });
const adminListingRoute = routesOf('catalog', { tags: ['admin-listings'] });

export const ListingStatus = z.enum(['draft', 'online', 'offline', 'abnormal', 'deleted']);
export const ReviewStatus = z.enum(['none', 'pending', 'approved', 'rejected']);

/** Whole hours of one rental; also bounds an order's `hours`. */
export const RentalHours = z.number().int().min(1).max(720);

export const Listing = z
  .object({
    id: Id,
    owner_id: Id,
    title: z.string().openapi({ example: '王者荣耀 荣耀王者 全英雄' }),
    game: z.string().openapi({ example: '王者荣耀' }),
    server: z.string().nullable().openapi({ example: '微信区' }),
    description: z.string().nullable(),
    hourly_price: Money.openapi({ description: 'rent per hour, in fen', example: 800 }),
    min_hours: RentalHours,
    max_hours: RentalHours.nullable(),
    deposit: Money.openapi({ description: 'deposit, in fen', example: 5000 }),
    screenshot_urls: z.array(z.string()),
    status: ListingStatus,
    review_status: ReviewStatus,
    reject_reason: z.string().nullable(),
    rented: z.boolean().openapi({ description: 'an order on this listing is active' }),
    allow_renewal: z.boolean().openapi({ description: 'its renter may extend an order in use (POST /api/orders/{id}/renew)' }),
    rating: RatingSummary.openapi({ description: 'the published ratings renters gave on this listing’s orders' }),
    owner_rating: RatingSummary.openapi({ description: 'the published ratings renters gave its owner, on any listing' }),
    require_rotation: z.boolean().openapi({
      description: 'after a rental that handed the account over, the listing cannot be rented again until its owner has changed the password (ADR 0066)',
    }),
    awaiting_rotation: z.boolean().openapi({
      description:
        'a rental handed the account over and the owner has not yet confirmed a new password (POST /api/listings/{id}/rotation-confirmed) ' +
        'or stored new credentials: shown, but ordering it is 409 LISTING_AWAITING_ROTATION',
    }),
    rotation_confirmed_at: Timestamp.nullable().openapi({ description: 'when the owner last confirmed a new password or stored new credentials' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Listing');

const minNotAboveMax = (v: { min_hours?: number; max_hours?: number | null }) =>
  v.min_hours === undefined || v.max_hours == null || v.min_hours <= v.max_hours;
const MIN_MAX_MESSAGE = { message: 'must be >= min_hours', path: ['max_hours'] };

/** `null` on the optional text fields and `max_hours` clears them (useful on PUT). */
const listingFields = z
  .object({
    title: z.string().trim().min(1).max(100),
    game: z.string().trim().min(1).max(50),
    server: z.string().trim().max(50).nullable().optional(),
    description: z.string().max(5000).nullable().optional(),
    hourly_price: PositiveMoney,
    min_hours: RentalHours,
    max_hours: RentalHours.nullable().optional(),
    deposit: Money,
    screenshot_urls: z.array(z.string().min(1).max(500)).max(9).optional(),
    allow_renewal: z.boolean().optional().openapi({ description: 'whether a renter may extend an order in use; true when omitted on create' }),
    credentials: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({
        description:
          'account credentials: when given, paying an order placed while they are stored hands them to the renter at once (no manual handoff). Stored encrypted, never in any listing view; a PUT replaces them and does not send the listing back to review, and counts as the password change a listing awaiting rotation waits for.',
      }),
    require_rotation: z.boolean().optional().openapi({
      description:
        'whether the account must get a new password after each rental that handed it over; on create it defaults to true when credentials are given, ' +
        'false otherwise; a PUT that stores the first credentials without it turns it on. Changing it does not send the listing back to review.',
    }),
  })
  .strict();

export const CreateListingBody = listingFields
  .extend({ min_hours: RentalHours.default(1) })
  .refine(minNotAboveMax, MIN_MAX_MESSAGE)
  .openapi('CreateListingBody');

/**
 * Any subset of the create fields. Built from the fields without `min_hours`'s default so an
 * omitted field stays omitted; when only one bound is sent the service checks it against the stored other one.
 */
export const UpdateListingBody = listingFields
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one field is required' })
  .refine(minNotAboveMax, MIN_MAX_MESSAGE)
  .openapi('UpdateListingBody');

const FenQuery = z.coerce.number().int().min(0).max(MAX_MONEY_FEN);

export const listListings = listingRoute('get /api/listings', { id: 'listListings', auth: 'public', token: 'ignored',
  summary: 'List online listings',
  description: 'A frozen owner has no online listing: the freeze takes them offline and approvals wait for the unfreeze.',
  query: PageQuery.extend({
    game: z.string().trim().max(50).optional(),
    q: z.string().trim().max(100).optional().openapi({ description: 'matches title and description' }),
    min_price: FenQuery.optional().openapi({ description: 'lowest hourly_price, in fen' }),
    max_price: FenQuery.optional().openapi({ description: 'highest hourly_price, in fen' }),
    sort: z.enum(['newest', 'price_asc', 'price_desc']).default('newest'),
  }),
  conditional: true,
  edge: { microCache: true },
  success: { status: 200, description: 'online listings', schema: Page(Listing) }, errors: [400],
});

export const getDefaultUploadScreenshot = listingRoute('get /api/listings/default-upload-screenshot', { id: 'getDefaultUploadScreenshot', auth: 'public', token: 'ignored',
  summary: 'The default screenshot of open-upload listings',
  conditional: true,
  success: { status: 200, description: 'PNG image', contentType: 'image/png' }, errors: [],
});

export const getListing = listingRoute('get /api/listings/{id}', { id: 'getListing', auth: 'public', token: 'optional',
  summary: 'Listing detail',
  description: 'Anyone sees an online listing; with a user token the owner also sees its own listing in any state but `deleted`.',
  params: IdParams,
  conditional: true,
  edge: { microCache: true },
  success: { status: 200, description: 'the listing', schema: Listing }, errors: [401, 404],
});

export const createListing = listingRoute('post /api/listings', { id: 'createListing', auth: 'user',
  summary: 'Create a listing (status draft, review none)',
  body: CreateListingBody,
  success: { status: 201, description: 'the created listing', schema: Listing }, errors: [400, 401, 403],
});

export const updateListing = listingRoute('put /api/listings/{id}', { id: 'updateListing', auth: 'user',
  summary: 'Update the caller’s listing',
  description: 'Refused while rented (409). Changing an online listing’s content moves it back to draft / none for re-review.',
  ...changeById(UpdateListingBody, { description: 'the updated listing', schema: Listing }),
});

export const confirmListingRotation = listingRoute('post /api/listings/{id}/rotation-confirmed', { id: 'confirmListingRotation', auth: 'user',
  summary: 'The owner confirms the account’s password was changed after a rental',
  description:
    'Clears awaiting_rotation, so the listing can be rented again (storing new credentials with PUT /api/listings/{id} does the same). ' +
    'Refused while rented (409 LISTING_UNAVAILABLE); on a listing not awaiting rotation it only records the time.',
  ...changeById(EmptyBody, { description: 'the listing, no longer awaiting rotation', schema: Listing }),
});

export const submitListingForReview = listingRoute('post /api/listings/{id}/submit-review', { id: 'submitListingForReview', auth: 'user',
  summary: 'Submit a draft listing for review',
  ...changeById(EmptyBody, { description: 'the listing, now draft / pending', schema: Listing }),
});

export const deleteListing = listingRoute('delete /api/listings/{id}', { id: 'deleteListing', auth: 'user',
  summary: 'Take down the caller’s listing',
  description: 'Moves it to `deleted` (hidden everywhere but the back office); refused while rented (409).',
  params: IdParams,
  success: { status: 200, description: 'the listing, now deleted', schema: Listing }, errors: [401, 403, 404, 409],
});

export const listSellerListings = sellerRoute('get /api/seller/listings', { id: 'listSellerListings', auth: 'user',
  summary: 'The caller’s own listings, in every state but deleted',
  query: PageQuery.extend({
    status: ListingStatus.optional(),
    review_status: ReviewStatus.optional(),
    awaiting_rotation: QueryBoolean.optional().openapi({ description: 'true: only listings waiting for a password change' }),
  }),
  success: { status: 200, description: 'own listings, newest first', schema: Page(Listing) }, errors: [400, 401, 403],
});

export const getSellerListing = sellerRoute('get /api/seller/listings/{id}', { id: 'getSellerListing', auth: 'user',
  summary: 'The caller’s own listing detail',
  params: IdParams,
  success: { status: 200, description: 'the listing', schema: Listing }, errors: [401, 403, 404],
});

/** A complete account item an uploader vendor can copy. */
export const OPEN_UPLOAD_ACCOUNT_EXAMPLE = {
  title: '王者荣耀 V8 全皮肤',
  game: '王者荣耀',
  server: 'QQ区',
  description: '贵族 8，皮肤 300+，仅限排位',
  hourly_price: 600,
  deposit: 3000,
  min_hours: 2,
  max_hours: 72,
  account: '1234567890',
  password: 'p@ssw0rd',
  extra: { bound_phone: '138****8000' },
};

/**
 * One account as an uploader vendor sends it. The route accepts any value per item so that one
 * bad item does not refuse the whole upload; the service validates each item with this schema and
 * reports failures in `failed`. Fields it does not know are tolerated (uploaders' software adds its
 * own): they never fail the item and are kept with the upload record.
 */
export const OpenUploadAccount = z
  .object({
    title: z.string().trim().min(1).max(100),
    game: z.string().trim().min(1).max(50),
    server: z.string().trim().max(50).optional(),
    description: z.string().max(5000).optional(),
    hourly_price: PositiveMoney.openapi({ description: 'rent per hour, in fen' }),
    deposit: Money.openapi({ description: 'deposit, in fen' }),
    min_hours: RentalHours.optional().openapi({ description: 'default 1' }),
    max_hours: RentalHours.optional(),
    account: z.string().min(1).max(100).openapi({ description: 'login name of the rented account; stored encrypted' }),
    password: z.string().min(1).max(200).openapi({ description: 'stored encrypted, never shown in listing views' }),
    extra: z
      .record(z.string().max(64), z.string().max(1000))
      .refine((r) => Object.keys(r).length <= 20, 'at most 20 entries')
      .optional()
      .openapi({ description: 'further credentials (bound phone, security answers…); stored encrypted' }),
  })
  .refine(minNotAboveMax, MIN_MAX_MESSAGE)
  .openapi('OpenUploadAccount', { example: OPEN_UPLOAD_ACCOUNT_EXAMPLE });

export const OpenUploadTime = z
  .union([
    z.iso.datetime({ offset: true, local: true }),
    z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'must be ISO 8601 or YYYY-MM-DD HH:mm:ss'),
  ])
  .openapi({ example: '2026-11-22 17:00:00' });

const OpenUploadItem = z.unknown().openapi({ description: 'an OpenUploadAccount, validated per item: one that is not fails alone' });

export const OpenUploadBody = z
  .object({
    uploadTime: OpenUploadTime,
    uploaderName: z.string().trim().min(1).max(64).openapi({ description: 'admin username, or a unique admin nickname', example: 'cs_alice' }),
    data: z.union([
      z.array(OpenUploadItem).min(1).max(20),
      OpenUploadItem.refine((v) => !Array.isArray(v), 'must be one account or an array of 1 to 20'),
    ]),
  })
  .strict()
  .openapi('OpenUploadBody', {
    example: { uploadTime: '2026-11-22 18:00:00', uploaderName: 'cs_alice', data: [OPEN_UPLOAD_ACCOUNT_EXAMPLE] },
  });

export const UploadItemError = z.object({ path: z.string(), message: z.string() });

export const OpenUploadResult = z
  .object({
    upload_id: Id,
    listings: z.array(z.object({ id: Id, status: z.literal('draft'), review_status: z.literal('pending') })),
    failed: z.array(
      z.object({
        index: z.number().int().openapi({ description: 'position in `data` (0 for a single object)' }),
        errors: z.array(UploadItemError),
      }),
    ),
  })
  .openapi('OpenUploadResult');

/** The first bytes of a refused delivery that its record keeps (sealed): enough to see who sent what. */
export const REFUSED_DELIVERY_BYTES_KEPT = 16 * 1024;

export const openUploadListings = openUploadRoute('post /api/open/listing-uploads', { id: 'openUploadListings', auth: 'public', token: 'ignored',
  summary: 'Open upload: external software delivers accounts as draft listings awaiting review',
  description:
    'No login (an Authorization header is ignored). Per-IP rate limit and a body limit (413) apply; the X-Upload-Token header must match ' +
    'OPEN_UPLOAD_TOKEN (401 otherwise; production always requires one). The body is read as JSON whatever the ' +
    'Content-Type says: not JSON is 400 MALFORMED_JSON, a body off this schema 400 VALIDATION_FAILED. ' +
    'An unmatched uploaderName is 422 UPLOADER_NOT_MATCHED. ' +
    'Each item of `data` is validated on its own against the `OpenUploadAccount` schema ' +
    '(#/components/schemas/OpenUploadAccount, with an example to copy); items that fail, including items that are ' +
    'not objects, are listed in `failed` with their index and errors while the others become listings. Fields an item ' +
    'carries beyond that schema are ignored, never an error. Account credentials (`account`, `password`, `extra`) ' +
    'are stored encrypted and never appear in any listing view. Every delivery, refused ones included (400, 401, ' +
    '413, 415, 422), is recorded for the back office (GET /api/admin/open-uploads); 429 answers are not.',
  edge: { rate: 'open_upload', bodyLimit: 'open_upload', recordsRefusals: true },
  headers: z.object({ 'x-upload-token': z.string().optional().openapi({ description: 'OPEN_UPLOAD_TOKEN' }) }),
  body: OpenUploadBody,
  bodyType: 'raw',
  success: { status: 201, description: 'upload recorded; per-item results', schema: OpenUploadResult }, errors: [400, 401, 413, 415, 422, 429],
});

export const OpenUploadOutcome = z.enum(['accepted', 'partial', 'rejected', 'unmatched', 'refused']).openapi({
  description:
    '`accepted`: every item became a listing; `partial`: some did; `rejected`: none did (all three answered 201); ' +
    '`unmatched`: no active admin has that name (422); `refused`: the delivery itself was refused (400, 401, 413, 415…)',
});

const OpenUploadRecordFields = {
  id: Id,
  received_at: Timestamp,
  ip: z.string().nullable(),
  request_id: z.string().nullable(),
  uploader_name: z.string().nullable().openapi({ description: 'as sent; read from the first bytes when the body is not valid JSON' }),
  upload_time: z.string().nullable(),
  outcome: OpenUploadOutcome,
  status: z.number().int().openapi({ description: 'the HTTP status the uploader was answered' }),
  code: z.string().nullable().openapi({ description: 'the problem code of a refusal (MALFORMED_JSON, VALIDATION_FAILED, …)' }),
  reason: z.string().nullable(),
  item_count: z.number().int(),
  listing_count: z.number().int(),
  byte_count: z.number().int().openapi({ description: 'bytes received (for a body refused by its declared length: that length)' }),
  bytes_truncated: z.boolean().openapi({ description: 'only the first bytes were kept' }),
  matched_admin_id: Id.nullable(),
};

export const OpenUploadRecordSummary = z.object(OpenUploadRecordFields).openapi('OpenUploadRecordSummary');

export const OpenUploadRecord = z
  .object({
    ...OpenUploadRecordFields,
    publisher_user_id: Id.nullable(),
    redacted_body: z.unknown().openapi({
      description:
        'the delivered JSON with every credential (`account`, `password`, `extra`) and every field the schema does not know ' +
        'replaced by "[redacted]"; null when the body was not valid JSON',
    }),
    redacted_text: z.string().nullable().openapi({
      description:
        'for a body that was not valid JSON or was cut short: its first characters with every letter and digit masked ' +
        'except known field names and the uploader fields, so the syntax error can be found without reading secrets',
    }),
    errors: z.array(UploadItemError).openapi({ description: 'what failed validation, for a 400' }),
    result: orNull(OpenUploadResult).openapi({ description: 'the 201 answer' }),
  })
  .openapi('OpenUploadRecord');

export const adminListOpenUploads = adminOpenUploadRoute('get /api/admin/open-uploads', { id: 'adminListOpenUploads', auth: 'admin', permission: 'uploads.read',
  summary: 'Open-upload deliveries, refused ones included, newest first',
  description:
    'Every delivery to POST /api/open/listing-uploads with its outcome, the status answered and why. The raw bytes ' +
    'are kept sealed and never shown; GET /api/admin/open-uploads/{id} shows a redacted view.',
  query: PageQuery.extend({
    uploader_name: z.string().trim().min(1).max(200).optional().openapi({ description: 'exact uploaderName' }),
    outcome: OpenUploadOutcome.optional(),
    received_from: z.iso.datetime({ offset: true }).optional().openapi({ description: 'received at or after' }),
    received_to: z.iso.datetime({ offset: true }).optional().openapi({ description: 'received before' }),
  }),
  success: { status: 200, description: 'deliveries, newest first', schema: Page(OpenUploadRecordSummary) }, errors: [400, 401, 403],
});

export const adminGetOpenUpload = adminOpenUploadRoute('get /api/admin/open-uploads/{id}', { id: 'adminGetOpenUpload', auth: 'admin', permission: 'uploads.read',
  summary: 'One open-upload delivery with a redacted view of what was sent',
  params: IdParams,
  success: { status: 200, description: 'the delivery', schema: OpenUploadRecord }, errors: [401, 403, 404],
});

export const adminListListings = adminListingRoute('get /api/admin/listings', { id: 'adminListListings', auth: 'admin', permission: 'listings.read',
  summary: 'List listings in every state',
  query: PageQuery.extend({
    owner_id: z.string().max(100).optional(),
    status: ListingStatus.optional(),
    review_status: ReviewStatus.optional(),
    awaiting_rotation: QueryBoolean.optional().openapi({ description: 'true: only listings waiting for their owner to change the password' }),
  }),
  success: { status: 200, description: 'listings, newest first', schema: Page(Listing) }, errors: [400, 401, 403],
});

export const adminListPendingListings = adminListingRoute('get /api/admin/listings/pending', { id: 'adminListPendingListings', auth: 'admin', permission: 'listings.read',
  summary: 'Listings awaiting review (draft / pending)',
  query: PageQuery,
  success: { status: 200, description: 'listings awaiting review, oldest first (the one waiting longest on top)', schema: Page(Listing) }, errors: [400, 401, 403],
});

export const adminGetListing = adminListingRoute('get /api/admin/listings/{id}', { id: 'adminGetListing', auth: 'admin', permission: 'listings.read',
  summary: 'Listing detail in any state',
  params: IdParams,
  success: { status: 200, description: 'the listing', schema: Listing }, errors: [401, 403, 404],
});

function adminListingAction(id: string, action: string, summary: string, to: string) {
  return adminListingRoute(`post /api/admin/listings/{id}/${action}`, { id, auth: 'admin', permission: 'listings.review',
    summary,
    ...changeById(ReasonBody, { description: `the listing, now ${to}`, schema: Listing }),
  });
}

export const adminApproveListing = adminListingRoute('post /api/admin/listings/{id}/approve', { id: 'adminApproveListing', auth: 'admin', permission: 'listings.review',
  summary: 'Approve a listing awaiting review',
  description:
    '409 INVALID_STATE unless the listing is draft / pending; 409 OWNER_FROZEN while its owner is frozen ' +
    '(it stays pending and can be approved after the unfreeze).',
  ...changeById(EmptyBody, { description: 'the listing, now online / approved', schema: Listing }),
});

export const adminRejectListing = adminListingAction('adminRejectListing', 'reject', 'Reject a listing awaiting review', 'draft / rejected');
export const adminOfflineListing = adminListingAction('adminOfflineListing', 'offline', 'Take an online listing offline', 'offline');
export const adminMarkListingAbnormal = adminListingAction(
  'adminMarkListingAbnormal',
  'mark-abnormal',
  'Mark a listing abnormal',
  'abnormal',
);

export const catalogRoutes = [
  listListings,
  getDefaultUploadScreenshot,
  getListing,
  createListing,
  updateListing,
  confirmListingRotation,
  submitListingForReview,
  deleteListing,
  listSellerListings,
  getSellerListing,
  openUploadListings,
  adminListOpenUploads,
  adminGetOpenUpload,
  adminListListings,
  adminListPendingListings,
  adminGetListing,
  adminApproveListing,
  adminRejectListing,
  adminOfflineListing,
  adminMarkListingAbnormal,
];
