import { listingById, listingCredentials } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { ListingDirectory } from '../application/ports';

export function listingDirectory(internal: InternalClient): ListingDirectory {
  return {
    byId: (id) => internal.find(listingById, { params: { id } }),
    credentials: async (id) => (await internal.find(listingCredentials, { params: { id } }))?.credentials ?? null,
  };
}
