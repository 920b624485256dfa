import { ensurePublisherUser } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { PublisherAccounts } from '../application/ports';

export function publisherAccounts(internal: InternalClient): PublisherAccounts {
  return {
    async publisherFor(admin) {
      const { user_id } = await internal.call(ensurePublisherUser, { body: { admin_id: admin.id, admin_username: admin.username } });
      return user_id;
    },
  };
}
