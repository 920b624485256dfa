import { z } from 'zod';
import { problems, type Dashboard, type InternalClient } from '@market/shared';
import { countAdmins } from '../persistence/admin-users';
import type { AdminApp } from './admin-app';

const UserStats = z.object({ users_total: z.number().int(), users_today: z.number().int(), users_frozen: z.number().int() });
const ListingStats = z.object({
  listings_by_status: z.record(z.string(), z.number().int()),
  listings_pending_review: z.number().int(),
});

/** An upstream answering off the agreed shape is as good as down. */
async function fetchStats<S extends z.ZodType>(client: InternalClient, path: string, schema: S): Promise<z.infer<S>> {
  const parsed = schema.safeParse(await client.get(path));
  if (!parsed.success) throw problems.upstreamUnavailable(503);
  return parsed.data;
}

/** Figures come from the services that own them; none is cached, so the page shows the data as it is now. */
export async function getDashboard(app: Pick<AdminApp, 'db' | 'internal'>): Promise<z.infer<typeof Dashboard>> {
  const [users, listings, adminsTotal] = await Promise.all([
    fetchStats(app.internal('identity'), '/internal/users/stats', UserStats),
    fetchStats(app.internal('catalog'), '/internal/listings/stats', ListingStats),
    countAdmins(app.db),
  ]);
  return { ...users, admins_total: adminsTotal, ...listings };
}
