import { matchAdminUser, type InternalClient } from '@market/shared';
import type { AdminDirectory } from '../application/ports';

export function adminDirectory(internal: InternalClient): AdminDirectory {
  return {
    matchUploader: (name) => internal.find(matchAdminUser, { query: { name } }),
  };
}
