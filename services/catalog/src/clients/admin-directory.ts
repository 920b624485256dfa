import { Problem, z, type InternalClient } from '@market/shared';
import { parseUpstream } from './upstream';

const MatchedAdmin = z.object({ id: z.uuid(), username: z.string(), nickname: z.string().nullable().optional() });
export type MatchedAdmin = z.infer<typeof MatchedAdmin>;

/** The admin service's open-upload match (spec rule 4); null when no active admin matches. */
export function adminDirectory(admin: InternalClient) {
  return {
    async matchUploader(name: string): Promise<MatchedAdmin | null> {
      try {
        return parseUpstream(MatchedAdmin, await admin.get(`/internal/admin-users/match?name=${encodeURIComponent(name)}`));
      } catch (err) {
        if (err instanceof Problem && err.status === 404) return null;
        throw err;
      }
    },
  };
}

export type AdminDirectory = ReturnType<typeof adminDirectory>;
