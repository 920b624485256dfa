import { problems, type CreateListingBody, type Identity, type z } from '@market/shared';
import { v7 as uuidv7 } from 'uuid';
import { newListingContent } from '../domain/listing-content';
import { CREATED_BY_OWNER } from '../domain/listing-state';
import { insertListing, toListingView } from '../persistence/listing-repository';
import { callerUserId } from './listing-access';
import type { CatalogDeps } from './deps';
import { validateScreenshotUrls } from './validate-screenshots';

/** A new listing starts as draft / none; its owner submits it for review when ready. */
export async function createListing(deps: CatalogDeps, identity: Identity, body: z.infer<typeof CreateListingBody>) {
  const ownerId = callerUserId(identity);
  if (!ownerId) throw problems.forbidden('this account cannot own listings');
  await validateScreenshotUrls(deps.files, body.screenshot_urls);
  const row = await insertListing(deps.db.manager, {
    id: uuidv7(),
    owner_id: ownerId,
    ...newListingContent({ ...body, screenshot_urls: body.screenshot_urls ?? [] }),
    ...CREATED_BY_OWNER,
    open_upload_id: null,
    created_at: new Date(),
  });
  return toListingView(row);
}
