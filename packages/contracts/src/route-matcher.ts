/**
 * Which route contract a request's method and path belong to: one matcher for the gateway, the
 * services' pipeline and the OpenAPI check of the tests, so all three read a path the same way
 * (ADR 0044). Pure string logic: the path is the request target's path as received (percent-encoded,
 * no query string).
 *
 * - A literal segment matches itself exactly: letter case and percent-encoding count
 *   (`/API/listings` and `/api/%6Cistings` are no route).
 * - A parameter takes one non-empty segment and is handed over percent-decoded.
 * - One trailing slash is ignored, in a path and in a route's (`/api/orders/` is `/api/orders`);
 *   an empty segment elsewhere matches nothing.
 * - HEAD is matched as GET (answered as GET is, without the body).
 * - Where several routes match, the one with a literal segment where the others have a parameter
 *   wins, comparing segment by segment from the left: `/api/listings/default-upload-screenshot`
 *   over `/api/listings/{id}`, and `/a/b/{x}` over `/a/{y}/c`. A route without parameters thus
 *   wins over every route with some. Two routes of one method and one shape are refused.
 */

/** What the matcher reads of a route: its method and its OpenAPI path (`/api/orders/{id}`). */
export interface MatchableRoute {
  method: string;
  path: string;
}

export interface RouteMatch<R> {
  route: R;
  /**
   * The path parameters by name, percent-decoded; null when one is not valid percent-encoding
   * (the path is this route's, malformed: a 400 rather than a 404).
   */
  params: Record<string, string> | null;
}

interface Template<R> {
  route: R;
  /** each segment: its literal text, or null for a parameter */
  segments: Array<string | null>;
  /** the parameters' names, in path order */
  names: string[];
}

interface MethodTable<R> {
  /** routes without parameters, by path */
  literal: Map<string, R>;
  /** routes with parameters, by their number of segments, in precedence order */
  templated: Map<number, Template<R>[]>;
}

const SLASH = 47;
const PARAMETER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The path without one trailing slash (the root path stays `/`). */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.charCodeAt(path.length - 1) === SLASH ? path.slice(0, -1) : path;
}

function parseTemplate<R extends MatchableRoute>(route: R): Template<R> {
  if (route.path.charCodeAt(0) !== SLASH) throw new Error(`route path ${route.path} does not start with /`);
  const segments: Array<string | null> = [];
  const names: string[] = [];
  for (const segment of withoutTrailingSlash(route.path).slice(1).split('/')) {
    const param = PARAMETER.exec(segment);
    if (param) {
      segments.push(null);
      names.push(param[1]!);
    } else if (segment === '' || segment.includes('{') || segment.includes('}')) {
      throw new Error(`route path ${route.path} has a segment the matcher cannot read: "${segment}"`);
    } else {
      segments.push(segment);
    }
  }
  return { route, segments, names };
}

/** Negative when `a` wins: the first segment where one has a literal and the other a parameter decides. */
function precedence(a: Template<unknown>, b: Template<unknown>): number {
  for (let i = 0; i < a.segments.length; i += 1) {
    const aLiteral = a.segments[i] !== null;
    if (aLiteral !== (b.segments[i] !== null)) return aLiteral ? -1 : 1;
  }
  return 0;
}

function shapeOf(template: Template<unknown>): string {
  return template.segments.map((s) => s ?? '{}').join('/');
}

/** A path's parameters from its segments, decoded; null when one does not decode. */
function paramsOf(template: Template<unknown>, segments: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  let p = 0;
  for (let i = 0; i < template.segments.length; i += 1) {
    if (template.segments[i] !== null) continue;
    const raw = segments[i + 1]!;
    if (raw.includes('%')) {
      try {
        params[template.names[p]!] = decodeURIComponent(raw);
      } catch {
        return null;
      }
    } else {
      params[template.names[p]!] = raw;
    }
    p += 1;
  }
  return params;
}

/** Whether the path's segments (after the leading empty one) fit the template. */
function fits(template: Template<unknown>, segments: string[]): boolean {
  for (let i = 0; i < template.segments.length; i += 1) {
    const literal = template.segments[i];
    const segment = segments[i + 1]!;
    if (literal === null ? segment === '' : literal !== segment) return false;
  }
  return true;
}

export class RouteMatcher<R extends MatchableRoute> {
  private readonly byMethod = new Map<string, MethodTable<R>>();
  /** every route, for `allowedMethods` */
  private readonly templates: Template<R>[] = [];

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const template = parseTemplate(route);
      const method = route.method.toUpperCase();
      const table = this.byMethod.get(method) ?? { literal: new Map<string, R>(), templated: new Map<number, Template<R>[]>() };
      this.byMethod.set(method, table);
      const clash = this.templates.find((t) => t.route.method.toUpperCase() === method && shapeOf(t) === shapeOf(template));
      if (clash) throw new Error(`${method} ${route.path} and ${clash.route.path} match the same paths`);
      this.templates.push(template);
      if (template.names.length === 0) {
        table.literal.set(withoutTrailingSlash(route.path), route);
        continue;
      }
      const sameLength = table.templated.get(template.segments.length) ?? [];
      sameLength.push(template);
      table.templated.set(template.segments.length, sameLength);
    }
    // a stable sort: templates that cannot match one path keep their order, which does not matter
    for (const table of this.byMethod.values()) for (const list of table.templated.values()) list.sort(precedence);
  }

  match(method: string, path: string): RouteMatch<R> | undefined {
    const table = this.byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (!table || path.charCodeAt(0) !== SLASH) return undefined;
    const target = withoutTrailingSlash(path);
    const literal = table.literal.get(target);
    if (literal) return { route: literal, params: {} };
    const segments = target.split('/');
    const candidates = table.templated.get(segments.length - 1);
    if (!candidates) return undefined;
    for (const template of candidates) {
      if (fits(template, segments)) return { route: template.route, params: paramsOf(template, segments) };
    }
    return undefined;
  }

  /** The methods (upper case, in declaration order) of the routes whose path this is, whatever the method: for a 405's `Allow`. */
  allowedMethods(path: string): string[] {
    if (path.charCodeAt(0) !== SLASH) return [];
    const segments = withoutTrailingSlash(path).split('/');
    const methods: string[] = [];
    for (const template of this.templates) {
      if (template.segments.length !== segments.length - 1 || !fits(template, segments)) continue;
      const method = template.route.method.toUpperCase();
      if (!methods.includes(method)) methods.push(method);
    }
    return methods;
  }
}

