import { ensurePublisherUser as ensurePublisherRoute, payeeCheck, userStanding, userStats } from '@market/contracts';
import { internalRoute, type InternalBinding } from '@market/shared/http';
import type { IdentityDeps } from '../application/deps';
import { checkPayee } from '../application/check-payee';
import { ensurePublisherUser } from '../application/ensure-publisher-user';
import { readUserStanding } from '../application/read-user-standing';
import { readUserStats } from '../application/read-user-stats';

/** `/internal/*` for other services, by their shared contracts. */
export function identityInternalRoutes(deps: IdentityDeps): InternalBinding[] {
  return [
    internalRoute(ensurePublisherRoute, ({ body }) => ensurePublisherUser(deps, body)),
    internalRoute(userStats, () => readUserStats(deps)),
    internalRoute(userStanding, ({ params }) => readUserStanding(deps, params.id)),
    internalRoute(payeeCheck, ({ params, body }) => checkPayee(deps, params.id, body)),
  ];
}
