import { matchAdminUser as matchAdminRoute, systemConfigValues } from '@market/contracts';
import { internalRoute, type InternalBinding } from '@market/shared/http';
import type { AdminDeps } from '../application/deps';
import { listSystemConfigValues } from '../application/list-system-configs';
import { matchAdminUser } from '../application/match-admin-user';

/** `/internal/*` for other services (catalog matches open uploads; orders reads thresholds). */
export function adminInternalRoutes(deps: AdminDeps): InternalBinding[] {
  return [
    internalRoute(matchAdminRoute, ({ query }) => matchAdminUser(deps, query.name)),
    internalRoute(systemConfigValues, () => listSystemConfigValues(deps)),
  ];
}
