import { useSearchParams } from 'react-router';
import type { BaseRecord, CrudFilter } from '@refinedev/core';
import { useTable } from '@refinedev/antd';
import type { ResourceName } from '../data/resources';
import type { CursorMeta } from '../data/data-provider';
import type { ProblemError } from '../data/problem';
import type { Enum } from '../i18n';

/** One server-side filter of a list page: its query parameter, its label, and how it is entered. */
export interface FilterField {
  name: string;
  label: string;
  /** A choice among these values (a select); free text otherwise. */
  options?: readonly (string | { value: string; label: string })[];
  /** The kind of code the options are, shown translated (`label('order', 'in_use')`). */
  labels?: Enum;
  /** A day picker whose value is sent as the start or the end of that day. */
  day?: 'start' | 'end';
  /** The value when the URL names none (the filter then cannot be cleared). */
  fallback?: string;
  width?: number;
}

/** Rows per page (the API's default limit). */
export const PAGE_SIZE = 20;

/**
 * A resource's list through Refine's `useTable` (the data provider pages by cursor): server-side
 * filters and the page's cursor live in the URL as plain query parameters (`?status=open&cursor=…`),
 * so a view can be linked to, shared, and survives a reload. Cursors only go forward; "first page"
 * drops the cursor. The list shows its own error, so Refine's error notification is off.
 */
export function useCursorTable<T extends BaseRecord>(resource: ResourceName, fields: readonly FilterField[]) {
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(fields.map((f) => [f.name, params.get(f.name) ?? f.fallback]));
  const cursor = params.get('cursor') ?? undefined;
  const permanent: CrudFilter[] = Object.entries(filters)
    .filter((entry): entry is [string, string] => !!entry[1])
    .map(([field, value]) => ({ field, operator: 'eq', value }));
  const { tableQuery } = useTable<T, ProblemError>({
    resource,
    syncWithLocation: false,
    pagination: { mode: 'server', pageSize: PAGE_SIZE },
    filters: { permanent, mode: 'server' },
    sorters: { mode: 'off' },
    meta: { cursor },
    errorNotification: false,
    queryOptions: { retry: false },
  });
  const result = tableQuery.data as (typeof tableQuery.data & Partial<CursorMeta>) | undefined;
  const next = result?.cursor?.next;

  // a page's own parameters (the Listings page's `view`) stay; the filters and the cursor start afresh
  const setFilters = (values: Record<string, string | undefined>) => {
    const search = new URLSearchParams(params);
    for (const key of [...fields.map((f) => f.name), 'cursor']) search.delete(key);
    for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== '') search.set(key, value);
    setParams(search);
  };
  const nextPage = () => {
    if (!next) return;
    const search = new URLSearchParams(params);
    search.set('cursor', next);
    setParams(search);
  };
  const firstPage = () => {
    const search = new URLSearchParams(params);
    search.delete('cursor');
    setParams(search);
  };
  return {
    loading: tableQuery.isFetching,
    error: tableQuery.error,
    items: result?.data ?? [],
    next,
    fields,
    filters,
    cursor,
    setFilters,
    nextPage,
    firstPage,
    reload: () => void tableQuery.refetch(),
  };
}

export type CursorTable<T extends BaseRecord> = ReturnType<typeof useCursorTable<T>>;
