import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { CursorPage } from '@market/sdk';

/**
 * A server-side filtered, cursor-paged list whose filters and cursor live in the URL (so a view
 * can be shared and survives a reload). Cursors only go forward; "first page" drops the cursor.
 */
export function useCursorList<T>(filterKeys: readonly string[], fetchPage: (query: Record<string, string | undefined>) => Promise<CursorPage<T>>) {
  const [params, setParams] = useSearchParams();
  const [state, setState] = useState<{ loading: boolean; error: unknown; page: CursorPage<T> | null }>({ loading: true, error: null, page: null });
  const filters = Object.fromEntries(filterKeys.map((key) => [key, params.get(key) ?? undefined]));
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
  return { ...state, filters, cursor, setFilters, nextPage, firstPage, reload: load };
}
