import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchesEtag } from './read-cache';

/**
 * Whether a GET (or HEAD) answer about to go out is one the client already holds: the response
 * carries an `ETag` and the request's `If-None-Match` names it. The one rule of every contract
 * route (ADR 0044): a prepared body asks it, and so does a handler writing its own answer, through
 * `req.fresh`.
 *
 * A request's `Cache-Control: no-cache` does not change it, unlike Express's own `req.fresh`: that
 * directive asks caches to revalidate with the origin (RFC 9111 §5.2.1.4), and this is the origin
 * validating. `fetch()` adds it to every request carrying `If-None-Match`, which is how a matching
 * tag used to get the whole file again.
 */
export function isNotModified(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const status = res.statusCode;
  if ((status < 200 || status >= 300) && status !== 304) return false;
  const etag = res.getHeader('etag');
  return typeof etag === 'string' && matchesEtag(req.headers['if-none-match'], etag);
}
