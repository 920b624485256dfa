import { ensurePublisherUser, type InternalClient } from '@market/shared';

/** The ordinary user that publishes open uploads on behalf of an admin, created or reused by identity. */
export function publisherAccounts(internal: InternalClient) {
  return {
    async publisherFor(admin: { id: string; username: string }): Promise<string> {
      const { user_id } = await internal.call(ensurePublisherUser, { body: { admin_id: admin.id, admin_username: admin.username } });
      return user_id;
    },
  };
}

export type PublisherAccounts = ReturnType<typeof publisherAccounts>;
