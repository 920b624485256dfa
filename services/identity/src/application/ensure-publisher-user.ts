import { insertOrFindPublisher } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';

/** The ordinary user who publishes open-upload listings for a back-office admin (catalog asks for it). */
export async function ensurePublisherUser(deps: IdentityDeps, input: { admin_id: string; admin_username: string }) {
  return deps.db.transaction(async (tx) => {
    const { user, created } = await insertOrFindPublisher(tx, input.admin_id, input.admin_username);
    if (created) {
      await deps.events.publish(tx, 'user.registered', {
        user_id: user.id,
        phone_masked: '',
        nickname: user.nickname,
        registered_at: user.created_at.toISOString(),
      });
    }
    return { user_id: user.id };
  });
}
