import { matchAdminUser, Problem, type InternalClient, type InternalResult } from '@market/shared';

export type MatchedAdmin = InternalResult<typeof matchAdminUser>;

/** The admin service's open-upload match (spec rule 4); null when no active admin matches. */
export function adminDirectory(internal: InternalClient) {
  return {
    async matchUploader(name: string): Promise<MatchedAdmin | null> {
      try {
        return await internal.call(matchAdminUser, { query: { name } });
      } catch (err) {
        if (err instanceof Problem && err.status === 404) return null;
        throw err;
      }
    },
  };
}

export type AdminDirectory = ReturnType<typeof adminDirectory>;
