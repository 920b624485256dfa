/**
 * A service's addresses: `<NAME>_URL` may list several replicas, comma-separated
 * (`http://orders-1:8083,http://orders-2:8083`); callers take them in turn (ADR 0038).
 */
export function addressesOf(urls: string): string[] {
  return urls
    .split(',')
    .map((url) => url.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** Each call answers the next of `items` (addresses, or a proxy per address), round robin. */
export function roundRobin<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('nothing to balance over');
  if (items.length === 1) return () => items[0]!;
  let next = 0;
  return () => {
    const item = items[next]!;
    next = (next + 1) % items.length;
    return item;
  };
}
