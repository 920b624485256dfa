import { problems } from '../http/problem';

/**
 * Keyset cursors: the position after the last item of a page, as (sort value, id). Opaque to
 * clients (base64url JSON); a cursor that does not decode is a 400, not a 500.
 */
export interface CursorPosition {
  v: string | number;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): CursorPosition | null {
  if (cursor === undefined) return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      value &&
      (typeof value.v === 'string' || typeof value.v === 'number') &&
      typeof value.id === 'string' &&
      value.id.length <= 100
    ) {
      return { v: value.v, id: value.id };
    }
  } catch {
    // fall through to the problem below
  }
  throw problems.validation([{ path: 'query.cursor', message: 'cursor is not valid' }]);
}

/**
 * Takes `limit + 1` rows fetched in page order and returns the page with the cursor of its last
 * item when another page follows.
 */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  position: (row: Row) => CursorPosition,
  view: (row: Row) => Item,
): { items: Item[]; next_cursor: string | null } {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(view),
    next_cursor: hasMore && last !== undefined ? encodeCursor(position(last)) : null,
  };
}
