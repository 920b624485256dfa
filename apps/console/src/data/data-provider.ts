import type { BaseRecord, CrudFilter, DataProvider } from '@refinedev/core';
import { ok, type CursorPage, type MarketClient } from '@market/sdk';
import { RESOURCE_ROUTES, type ResourceRoutes } from './resources';
import { toProblemError } from './problem';

/** What a list answers beside its rows: the cursor of the next page (none on the last one). */
export interface CursorMeta {
  cursor: { next?: string; prev?: undefined };
}

function routes(resource: string, kind: Exclude<keyof ResourceRoutes, 'whole'>): string {
  const path = (RESOURCE_ROUTES as Record<string, ResourceRoutes>)[resource]?.[kind];
  if (!path) throw toProblemError(new Error(`the console has no ${kind} route for "${resource}"`));
  return path;
}

/** A path's one parameter (`{id}`, `{key}`) given the record's id. */
function pathParams(path: string, id: string | number | undefined, given?: Record<string, string>): Record<string, string> {
  const name = /\{(\w+)\}/.exec(path)?.[1];
  return { ...(name && id !== undefined ? { [name]: String(id) } : {}), ...given };
}

/**
 * The abort signal Refine hands a read (react-query's): a read replaced by a newer one (a badge's
 * refetch on the next queue change) is cancelled on the wire, so reads of one query never overlap.
 */
const signalOf = (meta: { [key: string]: unknown } | undefined) => (meta?.signal instanceof AbortSignal ? { signal: meta.signal } : {});

/** The API filters by query parameters, each equal to one value: Refine's `eq` filters become them. */
export function filtersToQuery(filters: CrudFilter[] | undefined): Record<string, string> {
  const query: Record<string, string> = {};
  for (const f of filters ?? []) {
    if ('field' in f && f.operator === 'eq' && f.value !== undefined && f.value !== null && f.value !== '') query[f.field] = String(f.value);
  }
  return query;
}

/**
 * Refine's data layer over the generated SDK. Lists page by cursor, as the API does: the page's
 * cursor comes in `meta.cursor` (the screen keeps it in the URL), the next one goes back as
 * `cursor.next`; Refine's `pageSize` is the API's `limit` (server pagination) and nothing is sent
 * for client pagination or none, nor to a list that answers every row at once (configs). The API counts nothing, so `total` is the rows of this page.
 * `custom` runs a move (approve, reject, freeze, arbitrate…): `url` is the API path with its
 * `{id}`-style parameters given in `meta.path`. Every refusal is a ProblemError carrying the
 * problem's `code` and `detail`.
 */
export function createDataProvider(client: MarketClient): DataProvider {
  // the typed client checks literal paths; here the path is data (checked in RESOURCE_ROUTES)
  const api = client.api as unknown as Record<'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>>;
  const call = async <T>(method: keyof typeof api, path: string, init: object): Promise<T> => {
    try {
      return (await ok(api[method](path, init))) as T;
    } catch (error) {
      throw toProblemError(error);
    }
  };

  return {
    getApiUrl: () => client.url('/api/admin').toString(),

    async getList<T extends BaseRecord>({ resource, pagination, filters, meta }: Parameters<DataProvider['getList']>[0]) {
      const whole = (RESOURCE_ROUTES as Record<string, ResourceRoutes>)[resource]?.whole;
      const limit = !whole && (pagination?.mode ?? 'server') === 'server' ? pagination?.pageSize : undefined;
      const after = !whole && meta?.cursor ? String(meta.cursor) : undefined;
      const query = { ...filtersToQuery(filters), ...(limit ? { limit } : {}), ...(after ? { cursor: after } : {}) };
      const page = await call<CursorPage<T> | { items: T[]; next_cursor?: null }>('GET', routes(resource, 'list'), { params: { query }, ...signalOf(meta) });
      const cursor: CursorMeta['cursor'] = { next: page.next_cursor ?? undefined, prev: undefined };
      return { data: page.items, total: page.items.length, cursor };
    },

    async getOne<T extends BaseRecord>({ resource, id, meta }: Parameters<DataProvider['getOne']>[0]) {
      const path = routes(resource, 'one');
      return { data: await call<T>('GET', path, { params: { path: pathParams(path, id, meta?.path) }, ...signalOf(meta) }) };
    },

    async getMany<T extends BaseRecord>({ resource, ids, meta }: Parameters<NonNullable<DataProvider['getMany']>>[0]) {
      const path = routes(resource, 'one');
      // no batch route: one read per id, as many as the page shows
      return { data: await Promise.all(ids.map((id) => call<T>('GET', path, { params: { path: pathParams(path, id, meta?.path) }, ...signalOf(meta) }))) };
    },

    async create<T extends BaseRecord>({ resource, variables }: Parameters<DataProvider['create']>[0]) {
      return { data: await call<T>('POST', routes(resource, 'create'), { body: variables }) };
    },

    async update<T extends BaseRecord>({ resource, id, variables, meta }: Parameters<DataProvider['update']>[0]) {
      const path = routes(resource, 'update');
      return { data: await call<T>('PUT', path, { params: { path: pathParams(path, id, meta?.path) }, body: variables }) };
    },

    async deleteOne() {
      throw toProblemError(new Error('the admin API deletes nothing'));
    },

    async custom<T extends BaseRecord>({ url, method, payload, query, meta }: Parameters<NonNullable<DataProvider['custom']>>[0]) {
      const verb = method.toUpperCase() as keyof typeof api;
      const init = { params: { path: meta?.path ?? {}, query: query ?? {} }, ...(verb === 'GET' ? signalOf(meta) : { body: payload ?? {} }) };
      return { data: await call<T>(verb, url, init) };
    },
  };
}
