import { v7 as uuidv7 } from 'uuid';
import { type Admin, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { recordAudit } from '@market/shared/events';
import { Conflict, InvalidInput, zodIssuesToFieldErrors } from '@market/shared/errors';
import { NewAdmin } from '../domain/admin-user';
import { insertAdmin } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

/**
 * Adds a back-office admin, for `npm run admin:create` (no actor: the audit entry is the system's)
 * and for `POST /api/admin/admins` (the calling admin); a taken username is refused with 409.
 */
export async function createAdmin(
  deps: Pick<AdminDeps, 'db' | 'events' | 'passwords'>,
  input: { username: unknown; nickname: unknown; password: unknown; roles?: unknown },
  actor: AdminIdentity | null = null,
): Promise<z.infer<typeof Admin>> {
  const parsed = NewAdmin.safeParse(input);
  if (!parsed.success) throw new InvalidInput(zodIssuesToFieldErrors(parsed.error.issues));
  const admin = parsed.data;
  const passwordHash = await deps.passwords.hash(admin.password);
  return deps.db.transaction(async (tx) => {
    const row = await insertAdmin(tx, { id: uuidv7(), username: admin.username, nickname: admin.nickname, passwordHash, roles: admin.roles });
    if (!row) throw new Conflict(`username ${admin.username} is already taken`);
    await recordAudit(deps.events, tx, actor, adminUserEntry('admin_user.create', row.id, { username: row.username, nickname: row.nickname, roles: row.roles }));
    return adminView(row);
  });
}
