import { type UpdateListingBody, type z } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { InvalidInput } from '@market/shared/errors';
import { changedFields, hoursBoundErrors } from '../domain/listing-content';
import { LISTING_CREDENTIALS_SEALED, upsertListingCredentials } from '../persistence/credentials-repository';
import { toListingView } from './listing-view';
import { ownListing } from './listing-access';
import { carryOutListingPlan, planMoveOf } from './listing-moves';
import type { CatalogDeps } from './deps';
import { validateScreenshotUrls } from './validate-screenshots';

/**
 * The owner edits content (not while it is rented). A change that matters moves the listing per
 * the `edit` cells of the state table (an online one goes back to review) and publishes
 * `listing.updated`; a PUT that changes nothing writes nothing. New credentials replace the sealed ones without a review: the
 * back office never sees them, so there is nothing to re-approve.
 */
export async function updateListing(deps: CatalogDeps, identity: Identity, id: string, body: z.infer<typeof UpdateListingBody>) {
  const { credentials, ...changes } = body;
  await validateScreenshotUrls(deps.files, changes.screenshot_urls);
  return deps.db.transaction(async (tx) => {
    const row = await ownListing(tx, id, identity, { lock: true });
    const plan = await planMoveOf(tx, row, { name: 'edit' }, 'owner');
    const boundErrors = hoursBoundErrors(row, changes);
    if (boundErrors.length > 0) throw new InvalidInput(boundErrors);
    if (credentials !== undefined) await upsertListingCredentials(tx, row.id, deps.secrets.seal(credentials, sealedAt(LISTING_CREDENTIALS_SEALED, row.id)));
    const changed = changedFields(row, changes);
    if (Object.keys(changed).length === 0) return toListingView(row);
    const moved = await carryOutListingPlan(tx, deps.events, row, plan, { actor: 'owner', actorId: row.owner_id }, changed);
    return toListingView(moved);
  });
}
