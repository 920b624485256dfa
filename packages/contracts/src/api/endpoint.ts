/** `'get /api/orders/{id}'` → its method and its path: the one space parts them. */
export function splitEndpoint<M extends string>(endpoint: `${M} /${string}`): { method: M; path: string } {
  const space = endpoint.indexOf(' ');
  return { method: endpoint.slice(0, space) as M, path: endpoint.slice(space + 1) };
}
