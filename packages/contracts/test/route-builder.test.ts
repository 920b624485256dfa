import { defineRoute, routesOf, type ErrorStatus, type RouteBody, type RouteParams, type RouteQuery, type RouteResult } from '../src/api';
import { IdParams, PageQuery } from '../src/common';
import { z } from '../src/zod';

// A builder's route must be the contract `defineRoute` makes of the same fields, and keep its type
// rules: the `@ts-expect-error` lines fail the type check (npx turbo run lint) once a rule is lost.
const route = routesOf('orders', { tags: ['orders'] });
const Thing = z.object({ name: z.string() });

/** Fails to compile unless A and B are the same type. */
function sameType<A, B>(..._proof: [A] extends [B] ? ([B] extends [A] ? [] : [never]) : [never]): void {}

describe('routesOf', () => {
  it('fills service, method, path and the group’s tags, and keeps every declared field', () => {
    const declared = {
      id: 'renameThing',
      auth: 'user' as const,
      summary: 'rename',
      params: IdParams,
      body: Thing,
      success: { status: 200 as const, description: 'the thing', schema: Thing },
      errors: [400, 404] satisfies ErrorStatus[],
    };
    const built = route('put /api/things/{id}', declared);
    expect(built).toEqual(defineRoute({ ...declared, service: 'orders', method: 'put', path: '/api/things/{id}', tags: ['orders'] }));
  });

  it('splits the endpoint at its one space, braces of a path parameter included', () => {
    const built = route('delete /api/things/{id}/parts/{part}', { id: 'dropPart', auth: 'user', summary: 'drop', success: { status: 204, description: 'gone' }, errors: [] });
    expect([built.method, built.path]).toEqual(['delete', '/api/things/{id}/parts/{part}']);
  });

  it('infers what a handler takes and answers from the declaration', () => {
    const read = route('get /api/things/{id}', { id: 'readThing', auth: 'user', summary: 'read', params: IdParams, query: PageQuery, success: { status: 200, description: 'the thing', schema: Thing }, errors: [404] });
    sameType<RouteParams<typeof read>, { id: string }>();
    sameType<RouteQuery<typeof read>, z.infer<typeof PageQuery>>();
    sameType<RouteBody<typeof read>, undefined>();
    sameType<RouteResult<typeof read>, { name: string }>();
    expect(read.auth).toBe('user');
  });

  it('refuses, at the type check, a public route without a token policy and an admin route without a permission', () => {
    const success = { status: 204, description: 'done' } as const;
    // @ts-expect-error a public route states what a token sent to it means
    route('get /api/open', { id: 'open', auth: 'public', summary: 'open', success, errors: [] });
    // @ts-expect-error an admin route states the permission it needs
    route('get /api/admin/things', { id: 'adminThings', auth: 'admin', summary: 'things', success, errors: [] });
    // @ts-expect-error a route that needs a token has no token policy to state
    route('get /api/mine', { id: 'mine', auth: 'user', token: 'optional', summary: 'mine', success, errors: [] });
    // @ts-expect-error the builder names the service; a declaration cannot
    route('get /api/mine', { id: 'mine', auth: 'user', service: 'wallet', summary: 'mine', success, errors: [] });
    // @ts-expect-error the endpoint starts with a method the contracts know
    route('patch /api/mine', { id: 'mine', auth: 'user', summary: 'mine', success, errors: [] });
    const admin = route('get /api/admin/things', { id: 'adminThings', auth: 'admin', permission: 'orders.read', summary: 'things', success, errors: [] });
    expect(admin.permission).toBe('orders.read');
  });
});
