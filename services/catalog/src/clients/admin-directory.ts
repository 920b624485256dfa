import { matchAdminUser, type InternalClient, type InternalResult } from '@market/shared';

export type MatchedAdmin = InternalResult<typeof matchAdminUser>;

/** The admin service's open-upload match (spec rule 4); null when no active admin matches. */
export function adminDirectory(internal: InternalClient) {
  return {
    matchUploader: (name: string): Promise<MatchedAdmin | null> => internal.find(matchAdminUser, { query: { name } }),
  };
}

export type AdminDirectory = ReturnType<typeof adminDirectory>;
