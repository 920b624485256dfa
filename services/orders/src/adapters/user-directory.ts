import { userStanding, type InternalClient } from '@market/shared';
import type { UserDirectory } from '../application/ports';

export function userDirectory(internal: InternalClient): UserDirectory {
  return {
    standing: (id) => internal.find(userStanding, { params: { id } }),
  };
}
