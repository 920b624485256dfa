import { type Admin, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { InvalidState } from '@market/shared/errors';
import { STATUS_CHANGES } from '../domain/admin-user';
import { AdminNotFound } from '../domain/errors';
import { findAdminById, moveAdminStatus } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

/** Lets a disabled admin log in again; the tokens it held when disabled stay revoked. */
export async function enableAdmin(
  deps: Pick<AdminDeps, 'db' | 'events' | 'revocations'>,
  actor: AdminIdentity,
  adminId: string,
): Promise<z.infer<typeof Admin>> {
  if (!isUuid(adminId)) throw new AdminNotFound();
  return deps.db.transaction(async (tx) => {
    const { from, to } = STATUS_CHANGES.enable;
    const row = await moveAdminStatus(tx, adminId, from, to);
    if (!row) {
      throw (await findAdminById(tx, adminId)) ? new InvalidState('this admin is already active') : new AdminNotFound();
    }
    await recordAudit(deps.events, tx, actor, adminUserEntry('admin_user.enable', adminId, { username: row.username }));
    await deps.revocations.unblockSubject('admin', adminId);
    return adminView(row);
  });
}
