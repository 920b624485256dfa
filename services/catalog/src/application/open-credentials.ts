import { sealedAt } from '@market/shared/crypto';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { ListingNotFound } from '../domain/errors';
import { findCredentialsOfListing, LISTING_CREDENTIALS_SEALED } from '../persistence/credentials-repository';
import type { CatalogDeps } from './deps';

/**
 * A listing's stored credentials, opened for the orders service to hand over when an order on it
 * is paid, read with the listing in one statement (ADR 0077). Every opening is audited (never the
 * credentials themselves); most listings store none, and that answer takes no transaction.
 */
export async function openListingCredentials(deps: CatalogDeps, id: string) {
  if (!isUuid(id)) throw new ListingNotFound();
  const stored = await findCredentialsOfListing(deps.db, id);
  if (!stored) throw new ListingNotFound();
  if (stored.sealed === null) return { listing_id: stored.listingId, credentials: null };
  const credentials = deps.secrets.open(stored.sealed, sealedAt(LISTING_CREDENTIALS_SEALED, stored.listingId));
  // the audit entry goes through the outbox, which is written only inside a transaction
  await deps.db.transaction((tx) =>
    recordAudit(deps.events, tx, null, {
      action: 'listing.credentials.open',
      biz_type: 'listing',
      biz_id: stored.listingId,
      detail: { purpose: 'automatic handoff of a paid order' },
    }),
  );
  return { listing_id: stored.listingId, credentials };
}
