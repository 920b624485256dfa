import { matchAdminUser } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { AdminDirectory } from '../application/ports';

export function adminDirectory(internal: InternalClient): AdminDirectory {
  return {
    matchUploader: (name) => internal.find(matchAdminUser, { query: { name } }),
  };
}
