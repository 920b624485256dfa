import type { Router } from 'express';
import { z } from 'zod';
import { parseOrThrow } from '@market/shared';
import type { AdminApp } from '../application/admin-app';
import { listSystemConfigValues } from '../application/list-system-configs';
import { matchAdminUser } from '../application/match-admin-user';

const MatchQuery = z.object({ name: z.string().min(1).max(200) });

/** `/internal/*` for other services (catalog matches open uploads; orders reads thresholds). */
export function adminInternalRoutes(app: AdminApp) {
  return (router: Router) => {
    router.get('/admin-users/match', async (req, res) => {
      const { name } = parseOrThrow(MatchQuery, req.query, 'query');
      res.json(await matchAdminUser(app, name));
    });
    router.get('/system-configs', async (_req, res) => {
      res.json(await listSystemConfigValues(app));
    });
  };
}
