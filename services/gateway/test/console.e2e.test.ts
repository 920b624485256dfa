import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startStack, temporaryFolder, type Stack } from '@market/testkit';

/** The gateway serves the console's build at /admin/ (ADR 0036); here a stand-in build in a temporary folder. */
describe('the console at /admin/', () => {
  const built = temporaryFolder('console-build');
  const missing = path.join(built, 'not-there');
  let stack: Stack;
  let bare: Stack;

  beforeAll(async () => {
    mkdirSync(path.join(built, 'assets'));
    writeFileSync(path.join(built, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/admin/assets/index-Ab12Cd.js"></script>');
    writeFileSync(path.join(built, 'assets/index-Ab12Cd.js'), 'console.log("console")');
    stack = await startStack({ services: [], env: { CONSOLE_DIR: built } });
    bare = await startStack({ services: [], env: { CONSOLE_DIR: missing } });
  });
  afterAll(() => Promise.all([stack.stop(), bare.stop()]));

  it('answers its index uncached, with a same-origin Content-Security-Policy, for every route of the app', async () => {
    for (const route of ['/admin/', '/admin/orders/0190a', '/admin/login?expired=1']) {
      const res = await fetch(stack.url + route);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/https?:|\*/);
      expect(await res.text()).toContain('/admin/assets/index-Ab12Cd.js');
    }
    const bareAdmin = await fetch(`${stack.url}/admin`, { redirect: 'manual' });
    expect(bareAdmin.status).toBe(301);
    expect(bareAdmin.headers.get('location')).toBe('/admin/');
  });

  it('caches hashed assets for good and answers a missing one 404, not the index', async () => {
    const asset = await fetch(`${stack.url}/admin/assets/index-Ab12Cd.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const absent = await fetch(`${stack.url}/admin/assets/gone-Zz99.js`);
    expect(absent.status).toBe(404);
    expect(absent.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('answers 503 CONSOLE_NOT_BUILT while there is no build, and the API is unaffected', async () => {
    const res = await fetch(`${bare.url}/admin/`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 503, code: 'CONSOLE_NOT_BUILT' });
    expect((await fetch(`${bare.url}/healthz`)).status).toBe(200);
  });
});
