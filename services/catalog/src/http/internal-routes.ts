import type { Router } from 'express';
import type { CatalogDeps } from '../application/deps';
import { listingInAnyState, listingStats } from '../application/read-listings';

/** `/internal/*` for other services (internal-routes.md); `stats` is mounted before `:id` so it is not taken for an id. */
export function catalogInternalRoutes(deps: CatalogDeps) {
  return (router: Router) => {
    router.get('/listings/stats', async (_req, res) => {
      res.json(await listingStats(deps));
    });
    router.get('/listings/:id', async (req, res) => {
      res.json(await listingInAnyState(deps, req.params.id));
    });
  };
}
