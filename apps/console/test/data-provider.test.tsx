import { describe, expect, it } from 'vitest';
import { createMarketClient } from '@market/sdk';
import { createDataProvider, filtersToQuery, type CursorMeta } from '../src/data/data-provider';
import { ProblemError } from '../src/data/problem';

/**
 * The admin API's list contract at the fetch boundary: 45 audit entries paged by `limit` and an
 * opaque cursor (the index after which the page starts), problems as RFC 9457 bodies.
 */
function fakeApi() {
  const rows = Array.from({ length: 45 }, (_, i) => ({ id: `e${i}`, action: i % 2 ? 'user.freeze' : 'listing.approve' }));
  const seen: URL[] = [];
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    seen.push(url);
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' } });
    if (url.pathname === '/api/admin/audit-logs') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      if (limit > 100) return json(400, { type: 'about:blank', title: 'Bad Request', status: 400, code: 'VALIDATION_FAILED', detail: 'the query is invalid', errors: [{ path: 'limit', message: 'must be at most 100' }] });
      const cursor = url.searchParams.get('cursor');
      if (cursor && !/^c\d+$/.test(cursor)) return json(400, { type: 'about:blank', title: 'Bad Request', status: 400, code: 'INVALID_CURSOR', detail: 'not a cursor of this list' });
      const action = url.searchParams.get('action');
      const matching = rows.filter((r) => !action || r.action === action);
      const start = cursor ? Number(cursor.slice(1)) : 0;
      const items = matching.slice(start, start + limit);
      return json(200, { items, next_cursor: start + limit < matching.length ? `c${start + limit}` : null });
    }
    if (url.pathname === '/api/admin/listings/l1/approve' && request.method === 'POST') {
      return json(409, { type: 'about:blank', title: 'Conflict', status: 409, code: 'LISTING_NOT_PENDING', detail: 'the listing is not awaiting review' });
    }
    if (url.pathname === '/api/admin/system-configs/order.payment_timeout_minutes' && request.method === 'PUT') {
      return json(200, { key: 'order.payment_timeout_minutes', value: (await request.json()).value });
    }
    return json(404, { type: 'about:blank', title: 'Not Found', status: 404, code: 'NOT_FOUND', detail: 'no such route' });
  };
  const client = createMarketClient({ baseUrl: 'http://console.test', realm: 'admin', tokens: { accessToken: 't' }, fetch });
  return { provider: createDataProvider(client), seen };
}

describe('the data provider over the SDK', () => {
  it('walks a list by cursor: the page size is the limit, each answer hands the next cursor until the last page', async () => {
    const { provider, seen } = fakeApi();
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await provider.getList({ resource: 'audit', pagination: { currentPage: 1, pageSize: 20, mode: 'server' }, meta: { cursor } });
      ids.push(...page.data.map((r) => String(r.id)));
      cursor = (page as unknown as CursorMeta).cursor.next;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(ids).toEqual(Array.from({ length: 45 }, (_, i) => `e${i}`));
    expect(seen.map((u) => u.search)).toEqual(['?limit=20', '?limit=20&cursor=c20', '?limit=20&cursor=c40']);
  });

  it('sends eq filters as query parameters and ignores empty ones', async () => {
    const { provider, seen } = fakeApi();
    const page = await provider.getList({
      resource: 'audit',
      pagination: { pageSize: 100, mode: 'server' },
      filters: [
        { field: 'action', operator: 'eq', value: 'user.freeze' },
        { field: 'actor_id', operator: 'eq', value: '' },
      ],
    });
    expect(page.data).toHaveLength(22);
    expect(page.data.every((r) => r.action === 'user.freeze')).toBe(true);
    expect((page as unknown as CursorMeta).cursor.next).toBeUndefined();
    expect(seen[0]!.searchParams.get('actor_id')).toBeNull();
    expect(filtersToQuery([{ field: 'status', operator: 'eq', value: 'open' }, { field: 'x', operator: 'contains', value: 'y' }])).toEqual({ status: 'open' });
  });

  it('surfaces a refusal as a Refine HttpError carrying the problem code, detail and field errors', async () => {
    const { provider } = fakeApi();
    const refused = await provider.getList({ resource: 'audit', pagination: { pageSize: 500, mode: 'server' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', detail: 'the query is invalid', errors: { limit: 'must be at most 100' }, message: 'VALIDATION_FAILED: the query is invalid' });
    const badCursor = await provider.getList({ resource: 'audit', meta: { cursor: 'forged' } }).catch((e: unknown) => e);
    expect(badCursor).toMatchObject({ statusCode: 400, code: 'INVALID_CURSOR' });
  });

  it('runs moves through custom with the path parameters from meta, and updates by the route parameter', async () => {
    const { provider, seen } = fakeApi();
    const move = await provider.custom!({ url: '/api/admin/listings/{id}/approve', method: 'post', payload: {}, meta: { path: { id: 'l1' } } }).catch((e: unknown) => e);
    expect(move).toMatchObject({ statusCode: 409, code: 'LISTING_NOT_PENDING', detail: 'the listing is not awaiting review' });
    expect(seen.at(-1)!.pathname).toBe('/api/admin/listings/l1/approve');
    const updated = await provider.update({ resource: 'configs', id: 'order.payment_timeout_minutes', variables: { value: 20 } });
    expect(updated.data).toEqual({ key: 'order.payment_timeout_minutes', value: 20 });
  });

  it('hands Refine\'s abort signal to the request, so a replaced read is cancelled on the wire', async () => {
    const signals: AbortSignal[] = [];
    const client = createMarketClient({
      baseUrl: 'http://console.test',
      realm: 'admin',
      fetch: async (request) => {
        signals.push(request.signal);
        return new Response(JSON.stringify({ items: [], next_cursor: null }), { headers: { 'content-type': 'application/json' } });
      },
    });
    const controller = new AbortController();
    await createDataProvider(client).getList({ resource: 'audit', meta: { signal: controller.signal } });
    await createDataProvider(client).custom!({ url: '/api/admin/dashboard', method: 'get', meta: { signal: controller.signal } });
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    controller.abort();
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });

  it('names a failure without an answer NETWORK_ERROR', async () => {
    const client = createMarketClient({ baseUrl: 'http://console.test', realm: 'admin', fetch: () => Promise.reject(new TypeError('fetch failed')) });
    const failed = await createDataProvider(client).getOne({ resource: 'orders', id: 'o1' }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ statusCode: 0, code: 'NETWORK_ERROR', detail: 'fetch failed' });
  });
});
