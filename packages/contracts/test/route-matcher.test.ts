import { allRoutes, RouteMatcher, type MatchableRoute } from '../src';

const r = (method: string, path: string, id: string) => ({ method, path, id });

describe('the route matcher', () => {
  const byId = r('get', '/api/things/{id}', 'thing');
  const latest = r('get', '/api/things/latest', 'latestThing');
  const list = r('get', '/api/things', 'things');
  const create = r('post', '/api/things', 'createThing');
  const part = r('put', '/api/things/{id}/parts/{part}', 'putPart');
  const ofOwner = r('get', '/api/things/{id}/owner', 'thingOwner');
  const ownersThing = r('get', '/api/things/owner/{id}', 'ownersThing');
  const routes = [byId, latest, list, create, part, ofOwner, ownersThing];
  const matcher = new RouteMatcher(routes);
  const id = (method: string, path: string) => matcher.match(method, path)?.route.id;

  it('takes a literal segment over a parameter, segment by segment from the left, whatever the declaration order', () => {
    for (const order of [routes, [...routes].reverse()]) {
      const m = new RouteMatcher(order);
      expect(m.match('GET', '/api/things/latest')?.route).toBe(latest);
      expect(m.match('GET', '/api/things/other')?.route).toBe(byId);
      // both have one parameter and three literal segments: the literal in the third segment decides
      expect(m.match('GET', '/api/things/owner/owner')?.route).toBe(ownersThing);
      expect(m.match('GET', '/api/things/x/owner')?.route).toBe(ofOwner);
    }
    expect(id('GET', '/api/things')).toBe('things');
    expect(id('POST', '/api/things')).toBe('createThing');
    expect(matcher.match('PUT', '/api/things/a/parts/b')).toEqual({ route: part, params: { id: 'a', part: 'b' } });
  });

  it('ignores one trailing slash, and nothing else: no empty segment, no other letter case, no query', () => {
    expect(id('GET', '/api/things/')).toBe('things');
    expect(id('GET', '/api/things/latest/')).toBe('latestThing');
    expect(matcher.match('GET', '/api/things/x/')).toEqual({ route: byId, params: { id: 'x' } });
    expect(id('GET', '/api/things//')).toBeUndefined();
    expect(id('GET', '/api//things')).toBeUndefined();
    expect(id('GET', '/api/things//owner')).toBeUndefined();
    expect(id('GET', '/API/things')).toBeUndefined();
    expect(id('GET', '/api/Things/latest')).toBeUndefined();
    expect(id('GET', '/api/things?x=1')).toBeUndefined();
    expect(id('GET', 'api/things')).toBeUndefined();
    expect(id('GET', '')).toBeUndefined();
    expect(id('GET', '/api/things/a/b')).toBeUndefined();
    const docs = new RouteMatcher([r('get', '/api/docs/', 'docs')]);
    expect(docs.match('GET', '/api/docs')?.route.id).toBe('docs');
    expect(docs.match('GET', '/api/docs/')?.route.id).toBe('docs');
  });

  it('matches HEAD as GET, and no other method for another', () => {
    expect(id('HEAD', '/api/things')).toBe('things');
    expect(id('HEAD', '/api/things/latest/')).toBe('latestThing');
    expect(id('DELETE', '/api/things')).toBeUndefined();
    expect(id('get', '/api/things')).toBeUndefined();
    expect(new RouteMatcher([create]).match('HEAD', '/api/things')).toBeUndefined();
  });

  it('decodes parameters, matches literal segments as sent, and says when a parameter does not decode', () => {
    expect(matcher.match('GET', '/api/things/%E7%BC%93%E5%AD%98')?.params).toEqual({ id: '缓存' });
    expect(matcher.match('GET', '/api/things/a%2Fb')?.params).toEqual({ id: 'a/b' });
    expect(matcher.match('GET', '/api/things/%25')?.params).toEqual({ id: '%' });
    expect(matcher.match('GET', '/api/things/a+b')?.params).toEqual({ id: 'a+b' });
    // an encoded literal is not the literal: `latest` spelled with %6C is a thing's id
    expect(matcher.match('GET', '/api/things/%6Catest')).toEqual({ route: byId, params: { id: 'latest' } });
    expect(matcher.match('GET', '/api/%74hings')).toBeUndefined();
    // the route is found (a 400, not a 404), without parameters
    expect(matcher.match('GET', '/api/things/%E0%A4%A')).toEqual({ route: byId, params: null });
    expect(matcher.match('PUT', '/api/things/ok/parts/%')).toEqual({ route: part, params: null });
  });

  it('lists the methods of a path, whatever the method asked, for a 405', () => {
    expect(matcher.allowedMethods('/api/things')).toEqual(['GET', 'POST']);
    expect(matcher.allowedMethods('/api/things/')).toEqual(['GET', 'POST']);
    expect(matcher.allowedMethods('/api/things/x')).toEqual(['GET']);
    expect(matcher.allowedMethods('/api/things/x/parts/y')).toEqual(['PUT']);
    expect(matcher.allowedMethods('/api/things//')).toEqual([]);
    expect(matcher.allowedMethods('/api/nothing')).toEqual([]);
    expect(matcher.allowedMethods('nothing')).toEqual([]);
  });

  it('refuses two routes of one method and one shape, and a path it cannot read', () => {
    expect(() => new RouteMatcher([byId, r('get', '/api/things/{key}', 'other')])).toThrow(/match the same paths/);
    expect(() => new RouteMatcher([list, r('get', '/api/things', 'again')])).toThrow(/match the same paths/);
    expect(() => new RouteMatcher([byId, r('delete', '/api/things/{key}', 'remove')])).not.toThrow();
    expect(() => new RouteMatcher([r('get', 'api/things', 'relative')])).toThrow(/does not start with/);
    expect(() => new RouteMatcher([r('get', '/api/things/{id}.json', 'suffix')])).toThrow(/cannot read/);
    expect(() => new RouteMatcher([r('get', '/api//things', 'empty')])).toThrow(/cannot read/);
  });
});

describe('the contract routes under the matcher', () => {
  const matcher = new RouteMatcher(allRoutes);
  const sample = (route: MatchableRoute) => route.path.replace(/\{[^}]+\}/g, 'p');

  it('take every route at its own path', () => {
    for (const route of allRoutes) expect(matcher.match(route.method.toUpperCase(), sample(route))?.route).toBe(route);
  });

  // The routes two of which can match one path, and the one that takes it: the gateway's table, the
  // services' binding order and the OpenAPI check all gave these paths to the same routes before
  // they shared the matcher (ADR 0044). A new overlap has to be added here, deliberately.
  it('give the paths of overlapping routes to the literal one', () => {
    // a path both could take: each segment literal where either route has a literal there
    const common = (a: MatchableRoute, b: MatchableRoute) => {
      const as = a.path.split('/');
      const bs = b.path.split('/');
      return as.length === bs.length ? as.map((s, i) => (s.startsWith('{') ? (bs[i]!.startsWith('{') ? 'p' : bs[i]) : s)).join('/') : null;
    };
    const overlaps: string[] = [];
    for (const [i, a] of allRoutes.entries()) {
      for (const b of allRoutes.slice(i + 1)) {
        const path = common(a, b);
        const method = a.method.toUpperCase();
        if (a.method !== b.method || path === null) continue;
        if (new RouteMatcher([a]).match(method, path) && new RouteMatcher([b]).match(method, path)) {
          overlaps.push(`${method} ${a.path} | ${b.path}`);
        }
      }
    }
    expect(overlaps.sort()).toEqual([
      'GET /api/admin/listings/pending | /api/admin/listings/{id}',
      'GET /api/listings/default-upload-screenshot | /api/listings/{id}',
    ]);
    expect(matcher.match('GET', '/api/listings/default-upload-screenshot')?.route.id).toBe('getDefaultUploadScreenshot');
    expect(matcher.match('HEAD', '/api/listings/default-upload-screenshot/')?.route.id).toBe('getDefaultUploadScreenshot');
    expect(matcher.match('GET', '/api/listings/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b')?.route.id).toBe('getListing');
    expect(matcher.match('GET', '/api/admin/listings/pending')?.route.id).toBe('adminListPendingListings');
    expect(matcher.match('GET', '/api/admin/listings/x')?.route.id).toBe('adminGetListing');
    expect(matcher.allowedMethods('/api/listings/default-upload-screenshot').sort()).toEqual(['DELETE', 'GET', 'PUT']);
  });
});
