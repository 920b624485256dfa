import { type Admin, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { Forbidden, InvalidState, type DomainError } from '@market/shared/errors';
import { disableRefusal, STATUS_CHANGES, type DisableRefusal } from '../domain/admin-user';
import { AdminDisabled, AdminNotFound, LastActiveAdmin, LastSuperAdmin } from '../domain/errors';
import { findAdminById, lockActiveAdminIds, lockActiveSuperAdminIds, moveAdminStatus } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { endSessionsOf } from './end-sessions';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

const REFUSALS: Record<DisableRefusal, () => DomainError> = {
  actor_disabled: () => new AdminDisabled(),
  self: () => new Forbidden('an admin cannot disable their own account'),
  already_disabled: () => new InvalidState('this admin is already disabled'),
  last_active: () => new LastActiveAdmin(),
  last_super_admin: () => new LastSuperAdmin('the last active super admin cannot be disabled'),
};

/**
 * Disables an admin: its sessions end, its tokens are revoked, and it is blocked at the gateway
 * (until enabled). Open-upload matching only considers active admins, so it stops matching with
 * the same commit. The active admins are locked first, so the "someone stays active" rule is
 * judged on what is true at commit time even when admins disable each other at once.
 */
export async function disableAdmin(
  deps: Pick<AdminDeps, 'db' | 'events' | 'revocations' | 'config'>,
  actor: AdminIdentity,
  adminId: string,
): Promise<z.infer<typeof Admin>> {
  if (!isUuid(adminId)) throw new AdminNotFound();
  return deps.db.transaction(async (tx) => {
    const activeIds = await lockActiveAdminIds(tx);
    const superAdminIds = await lockActiveSuperAdminIds(tx);
    const target = await findAdminById(tx, adminId);
    if (!target) throw new AdminNotFound();
    const refusal = disableRefusal(actor.sub, target, activeIds, superAdminIds);
    if (refusal) throw REFUSALS[refusal]();
    const { from, to } = STATUS_CHANGES.disable;
    const row = (await moveAdminStatus(tx, adminId, from, to))!;
    await recordAudit(deps.events, tx, actor, adminUserEntry('admin_user.disable', adminId, { username: row.username }));
    await deps.revocations.blockSubject('admin', adminId);
    // Also per session: the tokens must stay dead after an enable lifts the block.
    await endSessionsOf(deps, tx, adminId, null);
    return adminView(row);
  });
}
