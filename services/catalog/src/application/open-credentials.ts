import { sealedAt } from '@market/shared/crypto';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { ListingNotFound } from '../domain/errors';
import { findCredentialsOfListing, findListingCredentials, LISTING_CREDENTIALS_SEALED } from '../persistence/credentials-repository';
import { anyListing } from './listing-access';
import type { CatalogDeps } from './deps';

/**
 * A listing's stored credentials, opened for the orders service to hand over when an order on it
 * is paid. Every opening is audited (never the credentials themselves). Most listings store none:
 * that answer is one statement, with no transaction (ADR 0077); an opening is read again in the
 * transaction that audits it.
 */
export async function openListingCredentials(deps: CatalogDeps, id: string) {
  if (!isUuid(id)) throw new ListingNotFound();
  const stored = await findCredentialsOfListing(deps.db, id);
  if (!stored) throw new ListingNotFound();
  if (stored.sealed === null) return { listing_id: stored.listingId, credentials: null };
  return deps.db.transaction(async (tx) => {
    const listing = await anyListing(tx, id);
    const sealed = await findListingCredentials(tx, listing.id);
    if (sealed !== null) {
      await recordAudit(deps.events, tx, null, {
        action: 'listing.credentials.open',
        biz_type: 'listing',
        biz_id: listing.id,
        detail: { purpose: 'automatic handoff of a paid order' },
      });
    }
    return { listing_id: listing.id, credentials: sealed === null ? null : deps.secrets.open(sealed, sealedAt(LISTING_CREDENTIALS_SEALED, listing.id)) };
  });
}
