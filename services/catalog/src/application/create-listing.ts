import { type CreateListingBody, type z } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { Forbidden } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { newListingContent } from '../domain/listing-content';
import { CREATED_BY_OWNER } from '../domain/listing-state';
import { insertListingCredentials, LISTING_CREDENTIALS_SEALED } from '../persistence/credentials-repository';
import { insertListing } from '../persistence/listing-repository';
import { toListingView } from './listing-view';
import type { CatalogDeps } from './deps';
import { validateScreenshotUrls } from './validate-screenshots';

/**
 * A new listing starts as draft / none; its owner submits it for review when ready. Credentials,
 * when given, are sealed beside it in the same transaction and handed to renters on payment; with
 * them, rotation after each rental is required unless the owner says otherwise (ADR 0066).
 */
export async function createListing(deps: CatalogDeps, identity: Identity, body: z.infer<typeof CreateListingBody>) {
  const ownerId = callerUserId(identity);
  if (!ownerId) throw new Forbidden('this account cannot own listings');
  await validateScreenshotUrls(deps.files, body.screenshot_urls);
  const { credentials, require_rotation, ...content } = body;
  return deps.db.transaction(async (tx) => {
    const row = await insertListing(tx, {
      id: uuidv7(),
      owner_id: ownerId,
      ...newListingContent({ ...content, screenshot_urls: content.screenshot_urls ?? [] }),
      ...CREATED_BY_OWNER,
      open_upload_id: null,
      created_at: new Date(),
      require_rotation: require_rotation ?? credentials !== undefined,
    });
    if (credentials !== undefined) await insertListingCredentials(tx, row.id, deps.secrets.seal(credentials, sealedAt(LISTING_CREDENTIALS_SEALED, row.id)));
    return toListingView(row);
  });
}
