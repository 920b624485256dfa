import { z, type InternalClient } from '@market/shared';
import { parseUpstream } from './upstream';

const Publisher = z.object({ user_id: z.uuid() });

/** The ordinary user that publishes open uploads on behalf of an admin, created or reused by identity. */
export function publisherAccounts(identity: InternalClient) {
  return {
    async publisherFor(admin: { id: string; username: string }): Promise<string> {
      const body = await identity.post('/internal/users/publisher', { admin_id: admin.id, admin_username: admin.username });
      return parseUpstream(Publisher, body).user_id;
    },
  };
}

export type PublisherAccounts = ReturnType<typeof publisherAccounts>;
