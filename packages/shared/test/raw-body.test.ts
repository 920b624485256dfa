import type { Server } from 'node:http';
import { defineRoute, z } from '@market/contracts';
import { parseOrThrow, Problem, route } from '../src/http';
import { assertionFor } from '../src/testing';
import { listenWithRoutes } from './test-app';

const Body = z.object({ amount: z.number().int() });

const signed = defineRoute({
  id: 'testSignedCallback',
  service: 'wallet',
  method: 'post',
  path: '/api/test/callbacks',
  auth: 'public',
  token: 'ignored',
  summary: 'a callback verified over its bytes',
  tags: ['test'],
  bodyType: 'raw',
  body: Body,
  success: { status: 200, description: 'seen', schema: z.object({ bytes: z.string(), amount: z.number() }) },
  errors: [400],
});

describe('routes declaring a raw body', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    ({ server, base } = await listenWithRoutes('wallet', [
      route(signed, async ({ rawBody, body }) => {
        expect(body).toBeUndefined();
        const bytes = (await rawBody()).toString('utf8');
        if (!bytes.startsWith('{')) throw new Problem(400, 'SIGNATURE_INVALID', 'not what was signed');
        return { bytes, amount: parseOrThrow(Body, JSON.parse(bytes)).amount };
      }),
    ]));
  });
  afterAll(() => new Promise((r) => server.close(r)));

  async function post(body: string, contentType = 'application/json') {
    const path = '/api/test/callbacks';
    return fetch(base + path, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-internal-assertion': await assertionFor({ kind: 'anonymous', ip: null }, { service: 'wallet', method: 'POST', path }),
      },
      body,
    });
  }

  it('hand the handler the exact bytes sent, whitespace, unknown fields and all, whatever the content type', async () => {
    const raw = '{ "amount" : 12,\n "extra": true }';
    for (const type of ['application/json', 'text/plain', 'application/octet-stream']) {
      const res = await post(raw, type);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ bytes: raw, amount: 12 });
    }
  });

  it('leave body checks to the handler, so its own verdict comes first', async () => {
    const res = await post('[not json');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('SIGNATURE_INVALID');
  });
});
