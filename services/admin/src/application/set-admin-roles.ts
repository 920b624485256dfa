import { type Admin, type AdminRole, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { Forbidden, type DomainError } from '@market/shared/errors';
import { rolesRefusal, type RolesRefusal } from '../domain/admin-user';
import { AdminNotFound, LastSuperAdmin } from '../domain/errors';
import { findAdminById, lockActiveSuperAdminIds, replaceAdminRoles } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

const REFUSALS: Record<RolesRefusal, () => DomainError> = {
  self: () => new Forbidden('an admin cannot change their own roles'),
  last_super_admin: () => new LastSuperAdmin('the last active super admin keeps that role'),
};

/**
 * Replaces an admin's roles, audited with the roles before and after. The gateway's copy is
 * rewritten inside the transaction, Redis last, so the admin's next request already runs under the
 * new roles and a Redis failure leaves both copies as they were (ADR 0033).
 */
export async function setAdminRoles(
  deps: Pick<AdminDeps, 'db' | 'events' | 'revocations'>,
  actor: AdminIdentity,
  adminId: string,
  roles: AdminRole[],
): Promise<z.infer<typeof Admin>> {
  if (!isUuid(adminId)) throw new AdminNotFound();
  return deps.db.transaction(async (tx) => {
    const superAdminIds = await lockActiveSuperAdminIds(tx);
    const target = await findAdminById(tx, adminId);
    if (!target) throw new AdminNotFound();
    const refusal = rolesRefusal(actor.sub, target, roles, superAdminIds);
    if (refusal) throw REFUSALS[refusal]();
    const row = (await replaceAdminRoles(tx, adminId, roles))!;
    await recordAudit(deps.events, tx, actor, adminUserEntry('admin_user.set_roles', adminId, { username: row.username, before: target.roles, after: row.roles }));
    await deps.revocations.setAdminRoles(adminId, row.roles);
    return adminView(row);
  });
}
