import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { CursorPage } from '@market/sdk';

/** One server-side filter of a list page: its query parameter, its label, and how it is entered. */
export interface FilterField {
  name: string;
  label: string;
  /** A choice among these values (a select); free text otherwise. */
  options?: readonly (string | { value: string; label: string })[];
  /** A day picker whose value is sent as the start or the end of that day. */
  day?: 'start' | 'end';
  /** The value when the URL names none (the filter then cannot be cleared). */
  fallback?: string;
  width?: number;
}

/**
 * A server-side filtered, cursor-paged list whose filters and cursor live in the URL (so a view
 * can be shared and survives a reload). Cursors only go forward; "first page" drops the cursor.
 */
export function useCursorList<T>(fields: readonly FilterField[], fetchPage: (query: Record<string, string | undefined>) => Promise<CursorPage<T>>) {
  const [params, setParams] = useSearchParams();
  const [state, setState] = useState<{ loading: boolean; error: unknown; page: CursorPage<T> | null }>({ loading: true, error: null, page: null });
  const filters = Object.fromEntries(fields.map((f) => [f.name, params.get(f.name) ?? f.fallback]));
  const cursor = params.get('cursor') ?? undefined;
  const signature = params.toString();

  const load = useCallback(() => {
    setState((s) => ({ ...s, loading: true, error: null }));
    fetchPage({ ...filters, cursor }).then(
      (page) => setState({ loading: false, error: null, page }),
      (error: unknown) => setState({ loading: false, error, page: null }),
    );
    // the URL (its search string) is the whole input of the list
  }, [signature]);

  useEffect(load, [load]);

  const setFilters = (next: Record<string, string | undefined>) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(next)) if (value !== undefined && value !== '') search.set(key, value);
    setParams(search);
  };
  const nextPage = () => {
    if (!state.page?.next_cursor) return;
    const search = new URLSearchParams(params);
    search.set('cursor', state.page.next_cursor);
    setParams(search);
  };
  const firstPage = () => {
    const search = new URLSearchParams(params);
    search.delete('cursor');
    setParams(search);
  };
  return { ...state, fields, filters, cursor, setFilters, nextPage, firstPage, reload: load };
}

export type CursorList<T> = ReturnType<typeof useCursorList<T>>;
