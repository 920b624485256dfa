import { userStanding } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { Revocations } from '@market/shared/auth';
import type { UserBlocks, UserDirectory } from '../application/ports';

export function userDirectory(internal: InternalClient): UserDirectory {
  return {
    standing: (id) => internal.find(userStanding, { params: { id } }),
  };
}

export function userBlocks(revocations: Revocations): UserBlocks {
  return {
    frozen: (id) => revocations.subjectBlocked('user', id),
  };
}
