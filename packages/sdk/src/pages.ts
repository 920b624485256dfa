/** One page of a list route: `{ items, next_cursor }`. */
export interface CursorPage<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * Walks a cursor-paged list page by page: `fetchPage(undefined)` is the first page, then
 * `fetchPage(next_cursor)` until the cursor is null.
 */
export async function* pages<T>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T[], void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield page.items;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** Every item of a cursor-paged list, one at a time. */
export async function* items<T>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages(fetchPage)) yield* page;
}
