import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allRoutes, type AnyRoute } from '@market/contracts';
import { api, mintToken, startStack, type Stack } from '@market/testkit';

/**
 * Whatever a client sends, the answer is a problem with a client status, never a 500: every route
 * of the contract, with every identity it accepts, gets malformed JSON, wrong types, odd ids and
 * odd query strings.
 */
const ODD_IDS = ['x', '..', '%2e%2e', '0', '-1', 'null', "1' OR '1'='1", 'a'.repeat(100), '%00', '😀', '00000000-0000-0000-0000-000000000000'];
const ODD_BODIES = [
  '{"a":',
  '[]',
  '"text"',
  'null',
  '123',
  JSON.stringify({ title: {}, game: [], hourly_price: 1e308, phone: 13800138000, code: null, value: { deep: [1, { x: 'y' }] } }),
  JSON.stringify({ reason: 'x'.repeat(10_000) }),
  JSON.stringify({ uploadTime: 1, uploaderName: ['a'], data: 'x' }),
  JSON.stringify({ refresh_token: 'a'.repeat(5000), captcha_id: '../../etc', username: '\u202e', password: 1 }),
];
const ODD_QUERIES = ['?limit=0', '?limit=abc', '?cursor=!!!', '?cursor=eyJ2IjoiIiwiaWQiOiIifQ', '?status=nope&frozen=maybe', '?key=../../etc/passwd', '?min_price=-1&max_price=1e99', '?sort=random&q=%25%5F'];

function concrete(route: AnyRoute, id: string) {
  return route.path.replace(/\{[^}]+\}/g, id);
}

function callers(route: AnyRoute): Array<string | undefined> {
  if (route.auth === 'admin') return [mintToken('admin')];
  if (route.auth === 'user') return [mintToken('user')];
  return [undefined, mintToken('user')];
}

describe('hostile input through the gateway', () => {
  let stack: Stack;
  const storageDir = mkdtempSync(path.join(tmpdir(), 'market-hostile-files-'));

  beforeAll(async () => {
    stack = await startStack({
      services: ['identity', 'catalog', 'orders', 'wallet', 'files', 'notify', 'admin'],
      env: { TRUST_PROXY: 'true' },
      serviceEnv: { files: { FILES_STORAGE_DIR: storageDir } },
    });
  }, 60_000);
  afterAll(async () => {
    await stack.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('never answers 500 to anything a client can send', async () => {
    const client = api(stack.url);
    const failures: string[] = [];
    let calls = 0;
    const check = async (route: AnyRoute, path: string, init: RequestInit, label: string) => {
      calls += 1;
      const res = await client.raw(route.method.toUpperCase(), path, init);
      // an opened stream never ends by itself: its status and headers are the answer
      const text = route.stream && res.ok ? (await res.body?.cancel(), '') : await res.text();
      if (res.status >= 500) failures.push(`${res.status} ${route.method.toUpperCase()} ${path} (${label}): ${text.slice(0, 200)}`);
      else if (res.status >= 400 && !res.headers.get('content-type')?.includes('application/problem+json')) {
        failures.push(`${res.status} without problem+json: ${route.method.toUpperCase()} ${path} (${label})`);
      }
    };
    let address = 0;
    for (const route of allRoutes) {
      for (const token of callers(route)) {
        // a fresh client address per route keeps the per-address rate limits out of the way
        address += 1;
        const headers = {
          'x-forwarded-for': `10.9.${Math.floor(address / 250)}.${address % 250}`,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        };
        for (const id of ODD_IDS) await check(route, concrete(route, id), { headers }, `id ${id}`);
        const path = concrete(route, '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b');
        for (const query of ODD_QUERIES) await check(route, path + query, { headers }, `query ${query}`);
        if (route.method !== 'get') {
          for (const body of ODD_BODIES) {
            await check(route, path, { headers: { ...headers, 'content-type': 'application/json' }, body }, `body ${body.slice(0, 40)}`);
          }
          await check(route, path, { headers: { ...headers, 'content-type': 'text/plain' }, body: 'hello' }, 'text body');
          await check(route, path, { headers: { ...headers, 'content-type': 'application/json; charset=latin1' }, body: '{}' }, 'latin1 body');
          await check(route, path, { headers: { ...headers, 'content-type': 'application/json', 'content-encoding': 'br' }, body: '{}' }, 'br body');
          await check(route, path, { headers: { ...headers, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' }, 'broken multipart');
        }
      }
    }
    expect(calls).toBeGreaterThan(1500);
    expect(failures).toEqual([]);
  }, 300_000);

  it('refuses a body over its route’s limit on every write with 413, as the document says', async () => {
    const client = api(stack.url);
    const answers: string[] = [];
    for (const [index, route] of allRoutes.filter((r) => r.method !== 'get' && r.bodyType !== 'multipart').entries()) {
      const limit = route.edge?.bodyLimit === 'open_upload' ? 1024 * 1024 : 100 * 1024;
      const token = route.auth === 'admin' ? mintToken('admin') : route.auth === 'user' ? mintToken('user') : undefined;
      // checked against the served document by the client; the status is asserted here
      const res = await client.raw(route.method.toUpperCase(), concrete(route, '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b'), {
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': `10.8.${Math.floor(index / 250)}.${index % 250}`,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ reason: 'x'.repeat(limit) }),
      });
      answers.push(`${route.id} ${res.status} ${((await res.json()) as { code: string }).code}`);
    }
    expect(answers.length).toBeGreaterThan(40);
    expect(answers.filter((a) => !a.endsWith(' 413 PAYLOAD_TOO_LARGE'))).toEqual([]);
  }, 120_000);
});
