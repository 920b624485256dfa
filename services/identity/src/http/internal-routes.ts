import { parseOrThrow, z } from '@market/shared';
import type { Router } from 'express';
import type { IdentityDeps } from '../application/deps';
import { ensurePublisherUser } from '../application/ensure-publisher-user';
import { readUserStats } from '../application/read-user-stats';

const PublisherRequest = z
  .object({ admin_id: z.uuid(), admin_username: z.string().trim().min(1).max(100) })
  .strict();

/** `/internal/*` for other services (shapes fixed in the shared internal-routes list). */
export function mountInternalRoutes(deps: IdentityDeps) {
  return (router: Router) => {
    router.post('/users/publisher', async (req, res) => {
      res.json(await ensurePublisherUser(deps, parseOrThrow(PublisherRequest, req.body ?? {})));
    });
    router.get('/users/stats', async (_req, res) => {
      res.json(await readUserStats(deps));
    });
  };
}
