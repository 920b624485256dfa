import type { Request, Response, Router } from 'express';
import type { Identity } from '../auth/assertion';
import type { AnyInternalRoute, InternalInput, InternalResult } from '@market/contracts';
import { problems } from './problem';
import { expressPath } from './routes';
import { parseOrThrow } from './validate';

export interface InternalBinding {
  contract: AnyInternalRoute;
  handler: (input: any) => Promise<unknown>;
}

/** Binds a provider's use case to its internal contract. */
export function internalRoute<C extends AnyInternalRoute>(
  contract: C,
  handler: (input: InternalInput<C>) => Promise<InternalResult<C>>,
): InternalBinding {
  return { contract, handler };
}

/**
 * Mounts internal routes, literal paths before parameters (`/listings/stats` before `/listings/{id}`).
 * Only service identities get here; each route answers only the services its contract names.
 */
export function mountInternalRoutes(router: Router, bindings: InternalBinding[], opts: { validateResponses: boolean }) {
  const literalSegments = (b: InternalBinding) => b.contract.path.split('/').filter((s) => s && !s.startsWith('{')).length;
  for (const { contract, handler } of [...bindings].sort((a, b) => literalSegments(b) - literalSegments(a))) {
    router[contract.method](expressPath(contract.path), async (req: Request, res: Response) => {
      res.locals.routeId = contract.id;
      const caller = res.locals.identity as Extract<Identity, { kind: 'service' }>;
      if (!contract.callers.includes(caller.sub)) throw problems.forbidden(`${contract.id} is not open to ${caller.sub}`);
      const input = {
        params: contract.params ? parseOrThrow(contract.params, req.params, 'path') : undefined,
        query: contract.query ? parseOrThrow(contract.query, req.query, 'query') : undefined,
        body: contract.body ? parseOrThrow(contract.body, req.body ?? {}) : undefined,
      };
      const result = await handler(input);
      if (opts.validateResponses) contract.response.parse(result);
      res.json(result);
    });
  }
}
