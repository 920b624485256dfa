import { internalRoute, matchAdminUser as matchAdminRoute, systemConfigValues, type InternalBinding } from '@market/shared';
import type { AdminApp } from '../application/admin-app';
import { listSystemConfigValues } from '../application/list-system-configs';
import { matchAdminUser } from '../application/match-admin-user';

/** `/internal/*` for other services (catalog matches open uploads; orders reads thresholds). */
export function adminInternalRoutes(app: AdminApp): InternalBinding[] {
  return [
    internalRoute(matchAdminRoute, ({ query }) => matchAdminUser(app, query.name)),
    internalRoute(systemConfigValues, () => listSystemConfigValues(app)),
  ];
}
