import { allRoutes, type AnyRoute } from '@market/shared';
import { api, mintToken, startStack, type Stack } from '@market/testkit';

const userToken = mintToken('user');
const adminToken = mintToken('admin');

function concretePath(route: AnyRoute) {
  return route.path.replace(/\{[^}]+\}/g, '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b');
}

describe('routes whose issue has not landed (notifications)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['orders', 'notify'] });
  });
  afterAll(() => stack.stop());

  it('are reachable through the gateway with their auth, and answer 501 NOT_IMPLEMENTED or a validation problem', async () => {
    const client = api(stack.url);
    const routes = allRoutes.filter((r) => r.errors.includes(501));
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const token = route.auth === 'admin' ? adminToken : route.auth === 'user' ? userToken : undefined;
      const res = await client.raw(route.method.toUpperCase(), concretePath(route), {
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(route.method === 'get' ? {} : { 'content-type': 'application/json' }),
        },
        body: route.method === 'get' ? undefined : '{}',
      });
      const body = (await res.json()) as { code: string };
      expect([400, 501]).toContain(res.status);
      expect(body.code).toBe(res.status === 501 ? 'NOT_IMPLEMENTED' : 'VALIDATION_FAILED');
      if (route.auth !== 'public') {
        const anonymous = await client.raw(route.method.toUpperCase(), concretePath(route));
        expect(anonymous.status).toBe(401);
      }
    }
  });
});
