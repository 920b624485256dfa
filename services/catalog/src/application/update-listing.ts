import { type UpdateListingBody, type z } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { InvalidInput } from '@market/shared/errors';
import { changedFields, hoursBoundErrors } from '../domain/listing-content';
import { findListingCredentials, LISTING_CREDENTIALS_SEALED, upsertListingCredentials } from '../persistence/credentials-repository';
import { toListingView } from './listing-view';
import { ownListing } from './listing-access';
import { carryOutListingPlan, planMoveOf } from './listing-moves';
import type { CatalogDeps } from './deps';
import { applyRotation } from './rotation';
import { validateScreenshotUrls } from './validate-screenshots';

/**
 * The owner edits content (not while it is rented). A change that matters moves the listing per
 * the `edit` cells of the state table (an online one goes back to review) and publishes
 * `listing.updated`; a PUT that changes nothing writes nothing. New credentials replace the sealed ones without a review: the
 * back office never sees them, so there is nothing to re-approve; they count as the password change
 * a listing awaiting rotation waits for, and storing the first ones turns rotation on unless the
 * owner says otherwise (ADR 0066).
 */
export async function updateListing(deps: CatalogDeps, identity: Identity, id: string, body: z.infer<typeof UpdateListingBody>) {
  const { credentials, require_rotation, ...changes } = body;
  await validateScreenshotUrls(deps.files, changes.screenshot_urls);
  return deps.db.transaction(async (tx) => {
    const row = await ownListing(tx, id, identity, { lock: true });
    const plan = await planMoveOf(tx, row, { name: 'edit' }, 'owner');
    const boundErrors = hoursBoundErrors(row, changes);
    if (boundErrors.length > 0) throw new InvalidInput(boundErrors);
    const firstCredentials = credentials !== undefined && (await findListingCredentials(tx, row.id)) === null;
    if (credentials !== undefined) await upsertListingCredentials(tx, row.id, deps.secrets.seal(credentials, sealedAt(LISTING_CREDENTIALS_SEALED, row.id)));
    const rotation = {
      require_rotation: require_rotation ?? (firstCredentials ? true : undefined),
      rotated_at: credentials !== undefined ? new Date() : undefined,
    };
    const rotated = rotation.require_rotation !== undefined || rotation.rotated_at !== undefined ? await applyRotation(tx, row.id, rotation) : row;
    const changed = changedFields(rotated, changes);
    if (Object.keys(changed).length === 0) return toListingView(rotated);
    const moved = await carryOutListingPlan(tx, deps.events, rotated, plan, { actor: 'owner', actorId: row.owner_id }, changed);
    return toListingView(moved);
  });
}
