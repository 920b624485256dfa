import { listingStats, userStats, type Dashboard, type z } from '@market/shared';
import { countAdmins } from '../persistence/admin-users';
import type { AdminApp } from './admin-app';

/** Figures come from the services that own them; none is cached, so the page shows the data as it is now. */
export async function getDashboard(app: Pick<AdminApp, 'db' | 'internal'>): Promise<z.infer<typeof Dashboard>> {
  const [users, listings, adminsTotal] = await Promise.all([
    app.internal.call(userStats),
    app.internal.call(listingStats),
    countAdmins(app.db),
  ]);
  return { ...users, admins_total: adminsTotal, ...listings };
}
