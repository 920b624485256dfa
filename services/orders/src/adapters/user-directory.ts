import { userStanding } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { UserDirectory } from '../application/ports';

export function userDirectory(internal: InternalClient): UserDirectory {
  return {
    standing: (id) => internal.find(userStanding, { params: { id } }),
  };
}
