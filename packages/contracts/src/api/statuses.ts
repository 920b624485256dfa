import type { ErrorStatus } from './route';

/**
 * A route's own error statuses with the 401 and 403 of the token it needs, ascending: what the
 * order, rating and wallet contracts list for every route that reads a caller's token.
 */
export function withTokenErrors(...own: ErrorStatus[]): ErrorStatus[] {
  const all: ErrorStatus[] = [...own, 401, 403];
  return all.sort((a, b) => a - b);
}
