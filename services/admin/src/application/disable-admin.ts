import { isUuid, problems, recordAudit, type Admin, type AdminIdentity, type z } from '@market/shared';
import { disableRefusal, STATUS_CHANGES, type DisableRefusal } from '../domain/admin-user';
import { findAdminById, lockActiveAdminIds, moveAdminStatus } from '../persistence/admin-users';
import type { AdminApp } from './admin-app';
import { endSessionsOf } from './end-sessions';
import { adminView } from './views';

const REFUSALS: Record<DisableRefusal, () => Error> = {
  actor_disabled: () => problems.forbidden('this admin account is disabled'),
  self: () => problems.forbidden('an admin cannot disable their own account'),
  already_disabled: () => problems.invalidState('this admin is already disabled'),
  last_active: () => problems.conflict('the last active admin cannot be disabled', 'LAST_ACTIVE_ADMIN'),
};

/**
 * Disables an admin: its sessions end, its tokens are revoked, and it is blocked at the gateway
 * (until enabled). Open-upload matching only considers active admins, so it stops matching with
 * the same commit. The active admins are locked first, so the "someone stays active" rule is
 * judged on what is true at commit time even when admins disable each other at once.
 */
export async function disableAdmin(
  app: Pick<AdminApp, 'db' | 'events' | 'revocations' | 'config'>,
  actor: AdminIdentity,
  adminId: string,
): Promise<z.infer<typeof Admin>> {
  if (!isUuid(adminId)) throw problems.notFound('admin not found');
  return app.db.transaction(async (tx) => {
    const activeIds = await lockActiveAdminIds(tx);
    const target = await findAdminById(tx, adminId);
    if (!target) throw problems.notFound('admin not found');
    const refusal = disableRefusal(actor.sub, target, activeIds);
    if (refusal) throw REFUSALS[refusal]();
    const { from, to } = STATUS_CHANGES.disable;
    const row = (await moveAdminStatus(tx, adminId, from, to))!;
    await recordAudit(app.events, tx, actor, {
      action: 'admin_user.disable',
      biz_type: 'admin_user',
      biz_id: adminId,
      detail: { username: row.username },
    });
    await app.revocations.blockSubject('admin', adminId);
    // Also per session: the tokens must stay dead after an enable lifts the block.
    await endSessionsOf(app, tx, adminId, null);
    return adminView(row);
  });
}
