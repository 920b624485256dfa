import { Problem } from '@market/shared/http';

/**
 * Characters after which the gateway's reading of a request target and Express's may disagree:
 * controls, spaces and anything outside ASCII (Node hands bytes over as latin-1, so a UTF-8
 * non-breaking space arrives as `\u00c2\u00a0`, which Express's URL parser trims as white space),
 * `#` (Express drops what follows as a fragment) and `\` (Express's URL parser turns it into `/`).
 * The gateway matches routes on the raw text and the service on Express's parsed path; a target
 * holding any of these could be routed and authorized as one path and served as another. No
 * conforming client sends them unencoded (RFC 3986 has them percent-encoded).
 */
const PARSES_DIFFERENTLY = /[^\x21-\x7e]|[#\\]/;

/**
 * Whether a request target is one both readings agree on: an origin-form target (`/…`) made of
 * plain printable ASCII without `#` or `\`. An absolute-form target (`http://host/path`) is
 * refused too: Express reads its path, the gateway its whole text.
 */
export function isPlainRequestTarget(target: string): boolean {
  return target.charCodeAt(0) === 47 /* / */ && !PARSES_DIFFERENTLY.test(target);
}

export const malformedRequestTarget = () =>
  new Problem(400, 'MALFORMED_REQUEST_TARGET', 'the request target holds characters that must be percent-encoded');
