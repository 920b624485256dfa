import { MAX_INPUT_DEPTH } from '@market/shared/http';
import { mintToken, stackPerSuite } from '@market/testkit';

const nestedArrays = (levels: number, inner = '"x"') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('deeply nested JSON through the gateway', () => {
  const own = stackPerSuite({ services: ['identity', 'catalog'] }, 60_000);

  const routes = [
    { label: 'anonymous SMS send', path: '/api/auth/sms/send', token: () => undefined },
    { label: 'authenticated listing create', path: '/api/listings', token: () => mintToken('user') },
  ];

  it.each(routes)('refuses thousands of nesting levels with 400 VALIDATION_FAILED on the $label route', async ({ path, token }) => {
    for (const body of [nestedArrays(20_000), nestedObjects(10_000), `{"phone":${nestedArrays(5_000)}}`]) {
      const res = await own.client.post(path, body, token());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors).toEqual([{ path: expect.any(String), message: `must not nest deeper than ${MAX_INPUT_DEPTH} levels` }]);
    }
  });

  it.each(routes)('draws the line just past 32 levels on the $label route', async ({ path, token }) => {
    const deepest = await own.client.post(path, `{"phone":${nestedArrays(MAX_INPUT_DEPTH - 1)}}`, token());
    expect(deepest.status).toBe(400);
    expect(deepest.body.errors).not.toContainEqual(expect.objectContaining({ message: expect.stringContaining('nest deeper') }));

    const tooDeep = await own.client.post(path, `{"phone":${nestedArrays(MAX_INPUT_DEPTH)}}`, token());
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors).toEqual([{ path: `phone${'.0'.repeat(MAX_INPUT_DEPTH - 1)}`, message: expect.stringContaining('nest deeper') }]);
  });

  it('still names every NUL character of a wide body in document order', async () => {
    const res = await own.client.post('/api/listings', { title: 'a\u0000', tags: ['ok', 'b\u0000'], ['k\u0000']: 1, z: { y: '\u0000' } }, mintToken('user'));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'title', message: 'must not contain NUL characters' },
      { path: 'tags.1', message: 'must not contain NUL characters' },
      { path: '(key)', message: 'must not contain NUL characters' },
      { path: 'z.y', message: 'must not contain NUL characters' },
    ]);
  });
});
