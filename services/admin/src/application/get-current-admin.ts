import { type CurrentAdmin, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { AdminDisabled, AdminNoLongerExists } from '../domain/errors';
import { findAdminById } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { currentAdminView } from './views';

export async function getCurrentAdmin(deps: Pick<AdminDeps, 'db'>, identity: AdminIdentity): Promise<z.infer<typeof CurrentAdmin>> {
  const admin = isUuid(identity.sub) ? await findAdminById(deps.db, identity.sub) : null;
  if (!admin) throw new AdminNoLongerExists();
  if (admin.status !== 'active') throw new AdminDisabled();
  return currentAdminView(admin);
}
