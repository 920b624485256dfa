import { defineRoute, z, type AnyRoute } from '@market/contracts';
import { FloodGuard } from '../src/rate-limit';
import { RouteTable } from '../src/route-table';

const contract = (method: 'get' | 'post' | 'put', path: string, id: string): AnyRoute =>
  defineRoute({
    id,
    service: 'catalog',
    method,
    path,
    auth: 'public',
    token: 'ignored',
    summary: id,
    tags: ['test'],
    success: { status: 200, description: 'ok', schema: z.object({}) },
    errors: [],
  } as never) as AnyRoute;

describe('the route table', () => {
  const byId = contract('get', '/api/things/{id}', 'thing');
  const latest = contract('get', '/api/things/latest', 'latestThing');
  const list = contract('get', '/api/things', 'things');
  const create = contract('post', '/api/things', 'createThing');
  const sub = contract('put', '/api/things/{id}/parts/{part}', 'putPart');
  const table = new RouteTable([byId, latest, list, create, sub]);

  it('matches a path without parameters to its route, before any route with parameters', () => {
    expect(table.match('GET', '/api/things/latest')).toBe(latest);
    expect(table.match('GET', '/api/things/other')).toBe(byId);
    expect(table.match('GET', '/api/things')).toBe(list);
    expect(table.match('POST', '/api/things')).toBe(create);
    expect(table.match('PUT', '/api/things/a/parts/b')).toBe(sub);
  });

  it('takes an optional trailing slash and HEAD for GET, and nothing else', () => {
    expect(table.match('GET', '/api/things/')).toBe(list);
    expect(table.match('GET', '/api/things/latest/')).toBe(latest);
    expect(table.match('GET', '/api/things/x/')).toBe(byId);
    expect(table.match('HEAD', '/api/things')).toBe(list);
    expect(table.match('GET', '/api/things//')).toBeUndefined();
    expect(table.match('GET', '/API/things')).toBeUndefined();
    expect(table.match('GET', '/api/things/a/b')).toBeUndefined();
    expect(table.match('DELETE', '/api/things')).toBeUndefined();
    expect(table.match('GET', '/api/things?x=1')).toBeUndefined();
  });

  it('lists the methods a path has, for 405', () => {
    expect(table.allowedMethods('/api/things').sort()).toEqual(['GET', 'POST']);
    expect(table.allowedMethods('/api/nothing')).toEqual([]);
  });
});

describe('the per-process flood guard', () => {
  it('lets `points` requests per key through in a window and then says how long until it ends', () => {
    let now = 1_000_000;
    const guard = new FloodGuard(3, 60_000, () => now);
    expect([guard.consume('a'), guard.consume('a'), guard.consume('a')]).toEqual([null, null, null]);
    now += 10_000;
    expect(guard.consume('a')).toBe(50_000);
    expect(guard.consume('b')).toBeNull();
    now += 50_000;
    // a new window
    expect(guard.consume('a')).toBeNull();
  });

  it('forgets windows that ended, without a timer per key', () => {
    let now = 0;
    const guard = new FloodGuard(1, 1000, () => now);
    for (let i = 0; i < 100; i += 1) guard.consume(`k${i}`);
    now = 5000;
    guard.consume('fresh');
    expect((guard as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });
});
