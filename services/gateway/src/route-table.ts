import { allRoutes, type AnyRoute } from '@market/contracts';

interface CompiledRoute {
  contract: AnyRoute;
  pattern: RegExp;
  literalSegments: number;
}

function compile(contract: AnyRoute): CompiledRoute {
  const segments = contract.path.split('/').filter(Boolean);
  const source = segments
    .map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')))
    .join('/');
  return {
    contract,
    pattern: new RegExp(`^/${source}/?$`),
    literalSegments: segments.filter((s) => !s.startsWith('{')).length,
  };
}

/**
 * The public surface is exactly the route contracts: anything else is answered 404 here and never
 * reaches a service, which is also what keeps `/internal/*` unreachable from outside.
 */
export class RouteTable {
  /** routes with parameters, by method, most literal segments first */
  private readonly byMethod = new Map<string, CompiledRoute[]>();
  /** routes without parameters, by method and path (with and without a trailing slash) */
  private readonly literal = new Map<string, Map<string, AnyRoute>>();
  private readonly paths: CompiledRoute[] = [];

  constructor(routes: AnyRoute[] = allRoutes) {
    for (const contract of routes) {
      const compiled = compile(contract);
      const method = contract.method.toUpperCase();
      this.paths.push(compiled);
      if (!contract.path.includes('{')) {
        const paths = this.literal.get(method) ?? new Map<string, AnyRoute>();
        paths.set(contract.path, contract);
        paths.set(`${contract.path}/`, contract);
        this.literal.set(method, paths);
        continue;
      }
      const list = this.byMethod.get(method) ?? [];
      list.push(compiled);
      this.byMethod.set(method, list);
    }
    // `/api/listings/default-upload-screenshot` must win over `/api/listings/{id}`: a path that
    // names a route without parameters is that route (one with parameters and as many segments has
    // fewer literal ones); among the others, the most literal segments win.
    for (const list of this.byMethod.values()) list.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  match(method: string, path: string): AnyRoute | undefined {
    const key = method === 'HEAD' ? 'GET' : method;
    return this.literal.get(key)?.get(path) ?? this.byMethod.get(key)?.find((r) => r.pattern.test(path))?.contract;
  }

  /** whether the path exists under some other method (405 rather than 404) */
  allowedMethods(path: string): string[] {
    return this.paths.filter((r) => r.pattern.test(path)).map((r) => r.contract.method.toUpperCase());
  }
}
