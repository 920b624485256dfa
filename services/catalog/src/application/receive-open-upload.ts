import { createHash, timingSafeEqual } from 'node:crypto';
import { OpenUploadBody, openUploadListings, type OpenUploadResult, type z } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { DomainError, InvalidInput, zodIssuesToFieldErrors } from '@market/shared/errors';
import { clientInputErrors } from '@market/shared/http';
import { planOrThrow } from '@market/shared/planning';
import { type Logger } from '@market/shared/logging';
import { v7 as uuidv7 } from 'uuid';
import { UploaderNotMatched, UploadTokenRefused } from '../domain/errors';
import { newListingContent } from '../domain/listing-content';
import { CREATED_BY_OWNER } from '../domain/listing-state';
import { planListingMove } from '../domain/plan-listing-move';
import { DEFAULT_SCREENSHOT_URL } from '../domain/screenshot-url';
import { checkUploadItems, readBody, uploadOutcome, type BodyReading, type DeliveredBody, type OpenUploadItem } from '../domain/open-upload';
import { insertListingCredentials, LISTING_CREDENTIALS_SEALED } from '../persistence/credentials-repository';
import { insertListing } from '../persistence/listing-repository';
import { insertOpenUpload } from '../persistence/open-upload-repository';
import type { CatalogDeps } from './deps';
import { carryOutListingPlan, listingFacts } from './listing-moves';
import { DeliveryNotJson, UnreadableDelivery } from './delivery-refusals';
import { deliveryRecord, recordRefusal, type DeliveryFacts } from './open-upload-records';

export interface OpenUploadDelivery extends DeliveredBody {
  token: string | undefined;
  identity: Identity;
  requestId: string | null;
  log: Logger;
}

type Result = z.infer<typeof OpenUploadResult>;
type Body = z.infer<typeof OpenUploadBody>;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compared as digests, so neither the content nor the length of the token leaks through timing. */
function tokenMatches(expected: string, sent: string | undefined): boolean {
  return sent !== undefined && timingSafeEqual(digest(expected), digest(sent));
}

function credentialsOf(item: OpenUploadItem): string {
  return JSON.stringify({ account: item.account, password: item.password, extra: item.extra ?? {} });
}

/** The body as the contract wants it, or the refusal of the delivery. */
function parseDelivery(delivery: OpenUploadDelivery, reading: BodyReading, token: string | undefined): Body | DomainError {
  if (token && !tokenMatches(token, delivery.token)) return new UploadTokenRefused();
  if (delivery.fault) return new UnreadableDelivery(delivery.fault);
  if (!reading.json.ok) return new DeliveryNotJson(reading.json.position);
  const unstorable = clientInputErrors(reading.json.value);
  if (unstorable.length > 0) return new InvalidInput(unstorable);
  const parsed = OpenUploadBody.safeParse(reading.json.value);
  return parsed.success ? parsed.data : new InvalidInput(zodIssuesToFieldErrors(parsed.error.issues));
}

/**
 * docs/rules.md §7 and the spec's open-upload rules: match the uploader to an active admin, get the
 * user that publishes for that admin, and turn each valid account into a draft / pending listing
 * with the default screenshot and its credentials sealed. Every delivery is recorded (ADR 0013):
 * a converted one in the same transaction as the listings it yields, a refused one on its own,
 * with the status it was answered and why.
 */
export async function receiveOpenUpload(deps: CatalogDeps, delivery: OpenUploadDelivery): Promise<Result> {
  const { identity } = delivery;
  const facts: DeliveryFacts = {
    ...delivery,
    receivedAt: new Date(),
    ip: identity.kind === 'service' ? null : identity.ip,
  };
  const reading = readBody(delivery.bytes);
  let matchedAdminId: string | null = null;
  const refuse = async (err: unknown): Promise<never> => {
    await recordRefusal(deps, facts, reading, deps.answerOf(err), { identity, matchedAdminId, tokenSent: delivery.token !== undefined }).catch((recordErr) =>
      delivery.log.error({ err: recordErr }, 'a refused open upload could not be recorded'),
    );
    throw err;
  };

  const body = parseDelivery(delivery, reading, deps.openUploadToken);
  if (body instanceof DomainError) return refuse(body);
  let publisherId: string;
  try {
    const admin = await deps.admins.matchUploader(body.uploaderName);
    if (!admin) throw new UploaderNotMatched();
    matchedAdminId = admin.id;
    publisherId = await deps.publishers.publisherFor(admin);
  } catch (err) {
    return refuse(err);
  }

  const checks = checkUploadItems(body.data);
  const failed = checks.flatMap((c) => (c.ok ? [] : [{ index: c.index, errors: c.errors }]));
  const accepted = checks.flatMap((c) => (c.ok ? [{ ...c, listingId: uuidv7() }] : []));
  const record = deliveryRecord(deps, facts, reading, {
    outcome: uploadOutcome(accepted.length, failed.length),
    // what the uploader is answered for an accepted delivery, as its route contract says
    status: openUploadListings.success.status,
    matched_admin_id: matchedAdminId,
    publisher_user_id: publisherId,
  });
  // Each listing is its publisher's, created and submitted for review at once.
  const created = listingFacts({ ...CREATED_BY_OWNER, rented: false }, false);
  const submit = planOrThrow(planListingMove(created, { name: 'submit', reason: 'open upload' }, 'owner', record.received_at));
  const result: Result = {
    upload_id: record.id,
    listings: accepted.map(({ listingId }) => ({ id: listingId, status: 'draft', review_status: 'pending' })),
    failed,
  };

  await deps.db
    .transaction(async (tx) => {
      await insertOpenUpload(tx, { ...record, result });
      for (const { item, listingId } of accepted) {
        const row = await insertListing(tx, {
          id: listingId,
          owner_id: publisherId,
          ...newListingContent({ ...item, screenshot_urls: [DEFAULT_SCREENSHOT_URL] }),
          ...CREATED_BY_OWNER,
          open_upload_id: record.id,
          created_at: record.received_at,
          // an uploaded account always comes with its credentials (ADR 0066)
          require_rotation: true,
        });
        await insertListingCredentials(tx, listingId, deps.secrets.seal(credentialsOf(item), sealedAt(LISTING_CREDENTIALS_SEALED, listingId)));
        await carryOutListingPlan(tx, deps.events, row, submit, { actor: 'owner', actorId: publisherId });
      }
    })
    .catch(refuse);
  return result;
}
