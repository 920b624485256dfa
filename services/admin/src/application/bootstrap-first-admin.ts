import { v7 as uuidv7 } from 'uuid';
import { type Admin, type z } from '@market/contracts';
import { recordAudit } from '@market/shared/events';
import { countAdmins, insertAdmin, lockAdminUsersForWriting } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

/**
 * Creates the first admin, a super admin, when there is none, and answers it; null when an admin already existed.
 * Replicas starting together serialise on a table lock and re-check under it, so exactly one
 * admin is created whatever bootstrap username each was given.
 */
export async function bootstrapFirstAdmin(
  deps: Pick<AdminDeps, 'db' | 'events' | 'passwords'>,
  credentials: { username: string; password: string },
): Promise<z.infer<typeof Admin> | null> {
  if ((await countAdmins(deps.db)) > 0) return null;
  // Hashed before the lock is taken: the hash is the slow part and needs no lock.
  const passwordHash = await deps.passwords.hash(credentials.password);
  return deps.db.transaction(async (tx) => {
    await lockAdminUsersForWriting(tx);
    if ((await countAdmins(tx)) > 0) return null;
    const row = (await insertAdmin(tx, { id: uuidv7(), username: credentials.username, nickname: credentials.username, passwordHash, roles: ['super_admin'] }))!;
    await recordAudit(deps.events, tx, null, adminUserEntry('admin_user.bootstrap', row.id, { username: row.username, roles: row.roles }));
    return adminView(row);
  });
}
