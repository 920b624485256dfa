import { createHash, timingSafeEqual } from 'node:crypto';
import {
  problems,
  recordAudit,
  sealedAt,
  type Identity,
  type OpenUploadBody,
  type OpenUploadResult,
  type z,
} from '@market/shared';
import { v7 as uuidv7 } from 'uuid';
import { newListingContent } from '../domain/listing-content';
import { CREATED_BY_OPEN_UPLOAD } from '../domain/listing-state';
import { DEFAULT_SCREENSHOT_URL } from '../domain/screenshot-url';
import { checkUploadItems, redactUpload, uploadItems, uploadOutcome, type OpenUploadItem } from '../domain/open-upload';
import { insertListingCredentials, LISTING_CREDENTIALS_SEALED } from '../persistence/credentials-repository';
import { insertListing } from '../persistence/listing-repository';
import { insertOpenUpload, OPEN_UPLOAD_RAW_SEALED, type OpenUploadRecord } from '../persistence/open-upload-repository';
import type { CatalogDeps } from './deps';
import { listingSnapshot } from './listing-moves';

export interface OpenUploadRequest {
  body: z.infer<typeof OpenUploadBody>;
  /** the JSON exactly as received, for the sealed record */
  raw: Record<string, unknown>;
  token: string | undefined;
  identity: Identity;
}

type Result = z.infer<typeof OpenUploadResult>;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compared as digests, so neither the content nor the length of the token leaks through timing. */
function tokenMatches(expected: string, sent: string | undefined): boolean {
  return sent !== undefined && timingSafeEqual(digest(expected), digest(sent));
}

function credentialsOf(item: OpenUploadItem): string {
  return JSON.stringify({ account: item.account, password: item.password, extra: item.extra ?? {} });
}

/**
 * CONTRACT §7 and the spec's open-upload rules: match the uploader to an active admin, get the
 * user that publishes for that admin, and turn each valid account into a draft / pending listing
 * with the default screenshot and its credentials sealed. The record of the upload and every
 * listing it yields are one transaction; an unmatched upload is recorded on its own and refused.
 */
export async function receiveOpenUpload(deps: CatalogDeps, request: OpenUploadRequest): Promise<Result> {
  const { body, raw, identity } = request;
  if (deps.openUploadToken && !tokenMatches(deps.openUploadToken, request.token)) {
    await deps.db.transaction((manager) =>
      recordAudit(deps.events, manager, identity, {
        action: 'open_upload.token_refused',
        biz_type: 'open_upload',
        detail: { uploader_name: body.uploaderName, token_sent: request.token !== undefined },
        result: 'failure',
      }),
    );
    throw problems.unauthenticated('X-Upload-Token is missing or wrong');
  }
  const uploadId = uuidv7();
  const record: OpenUploadRecord = {
    id: uploadId,
    received_at: new Date(),
    ip: identity.kind === 'service' ? null : identity.ip,
    uploader_name: body.uploaderName,
    upload_time: body.uploadTime,
    matched_admin_id: null,
    publisher_user_id: null,
    outcome: 'unmatched',
    item_count: uploadItems(body.data).length,
    raw_sealed: deps.secrets.seal(JSON.stringify(raw), sealedAt(OPEN_UPLOAD_RAW_SEALED, uploadId)),
    redacted: redactUpload(raw),
    result: null,
  };

  const admin = await deps.admins.matchUploader(body.uploaderName);
  if (!admin) {
    await deps.db.transaction((manager) =>
      insertOpenUpload(manager, { ...record, result: { code: 'UPLOADER_NOT_MATCHED', listings: [], failed: [] } }),
    );
    throw problems.unprocessable('UPLOADER_NOT_MATCHED', 'uploaderName matches no active admin');
  }
  const publisherId = await deps.publishers.publisherFor(admin);

  const checks = checkUploadItems(body.data);
  const result: Result = {
    upload_id: record.id,
    listings: [],
    failed: checks.flatMap((c) => (c.ok ? [] : [{ index: c.index, errors: c.errors }])),
  };
  const accepted = checks.flatMap((c) => (c.ok ? [{ ...c, listingId: uuidv7() }] : []));
  for (const { listingId } of accepted) result.listings.push({ id: listingId, status: 'draft', review_status: 'pending' });

  await deps.db.transaction(async (manager) => {
    await insertOpenUpload(manager, {
      ...record,
      matched_admin_id: admin.id,
      publisher_user_id: publisherId,
      outcome: uploadOutcome(accepted.length, result.failed.length),
      result,
    });
    for (const { item, listingId } of accepted) {
      const row = await insertListing(manager, {
        id: listingId,
        owner_id: publisherId,
        ...newListingContent({ ...item, screenshot_urls: [DEFAULT_SCREENSHOT_URL] }),
        ...CREATED_BY_OPEN_UPLOAD,
        open_upload_id: record.id,
        created_at: record.received_at,
      });
      await insertListingCredentials(manager, listingId, deps.secrets.seal(credentialsOf(item), sealedAt(LISTING_CREDENTIALS_SEALED, listingId)));
      await deps.events.publish(manager, 'listing.submitted', listingSnapshot(row, 'open upload', publisherId));
    }
  });
  return result;
}
