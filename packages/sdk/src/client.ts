import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/schema';
import { IDEMPOTENT_OPERATIONS } from './generated/idempotent';
import { ApiProblem, problemFrom } from './problem';

/** In a browser a relative base resolves against the page's origin; Node (and its type check) has no `location`. */
const pageOrigin = () => (globalThis as { location?: { origin: string } }).location?.origin;

export type Realm = 'user' | 'admin';

export interface Tokens {
  accessToken: string;
  /** user realm only: the back office has no refresh route, an admin logs in again */
  refreshToken?: string;
}

export interface MarketClientOptions {
  /** origin of the gateway, e.g. `http://localhost:8080`; '' for same-origin in a browser */
  baseUrl: string;
  /** which token realm this client speaks for (decides how a 401 is recovered) */
  realm?: Realm;
  tokens?: Tokens | null;
  /** called whenever the tokens change (login, rotation, sign-out) so the caller can persist them */
  onTokens?: (tokens: Tokens | null) => void;
  /** called when a call answered 401 and no refresh could recover it, or the admin was disabled: the session is over */
  onSignedOut?: (problem: ApiProblem) => void;
  fetch?: (request: Request) => Promise<Response>;
  /** source of generated Idempotency-Keys */
  newIdempotencyKey?: () => string;
}

export interface MarketClient {
  /** the typed openapi-fetch client: `api.GET('/api/listings', { params: { query: { limit: 10 } } })` */
  api: Client<paths>;
  realm: Realm;
  /** the absolute URL of one of the API's paths */
  url(path: string): URL;
  /**
   * A request through the client's session handling: the current bearer token, a user's 401
   * recovered by one refresh, the session ended on a final 401 (for what openapi-fetch does not
   * carry, such as a Server-Sent Events stream).
   */
  fetch(request: Request): Promise<Response>;
  tokens(): Tokens | null;
  signIn(tokens: Tokens): void;
  signOut(): void;
}

const REFRESH_PATH = '/api/auth/refresh';
const ADMIN_ME_PATH = '/api/admin/me';

interface TokenPairBody {
  access_token: string;
  refresh_token: string;
}

/**
 * A client of the public API. It sends the bearer token, adds an Idempotency-Key to the
 * operations that accept one (unless the caller gave one), and on a 401 of the user realm
 * exchanges the refresh token once (concurrent 401s share that one rotation, since reusing a
 * rotated refresh token revokes the whole family) and repeats the call.
 */
export function createMarketClient(options: MarketClientOptions): MarketClient {
  const realm = options.realm ?? 'user';
  const send = (request: Request) => (options.fetch ?? globalThis.fetch)(request);
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  let tokens: Tokens | null = options.tokens ?? null;
  let refreshing: Promise<boolean> | null = null;

  function setTokens(next: Tokens | null) {
    tokens = next;
    options.onTokens?.(next);
  }

  async function refresh(): Promise<boolean> {
    const refreshToken = tokens?.refreshToken;
    if (realm !== 'user' || !refreshToken) return false;
    const response = await send(
      new Request(new URL(REFRESH_PATH, options.baseUrl || pageOrigin()), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
      }),
    );
    if (!response.ok) return false;
    const pair = (await response.json()) as TokenPairBody;
    setTokens({ accessToken: pair.access_token, refreshToken: pair.refresh_token });
    return true;
  }

  function withToken(request: Request): Request {
    if (tokens) request.headers.set('authorization', `Bearer ${tokens.accessToken}`);
    return request;
  }

  async function fetchWithRefresh(request: Request): Promise<Response> {
    const caller = request.headers.get('authorization');
    const hadOwnToken = caller !== null && caller !== `Bearer ${tokens?.accessToken}`;
    const retry = request.clone();
    const sentWith = tokens?.accessToken;
    const response = await send(request);
    if (response.status === 403 && realm === 'admin' && !hadOwnToken && sentWith) return forbiddenOrOver(response, sentWith);
    if (response.status !== 401 || hadOwnToken || !sentWith || new URL(request.url).pathname === REFRESH_PATH) return response;
    // Another call may already have rotated the pair while this one was in flight.
    let recovered = tokens !== null && tokens.accessToken !== sentWith;
    if (!recovered) {
      refreshing ??= refresh().finally(() => {
        refreshing = null;
      });
      recovered = await refreshing;
    }
    if (recovered) return send(withToken(retry));
    await endSession(response, sentWith);
    return response;
  }

  async function endSession(response: Response, sentWith: string) {
    const problem = problemFrom(response, await response.clone().json().catch(() => undefined));
    if (tokens?.accessToken !== sentWith) return;
    setTokens(null);
    options.onSignedOut?.(problem);
  }

  /**
   * A 403 of the back office is either an action this admin may not take or a disabled account
   * (the gateway answers both FORBIDDEN): the admin's own profile, which every active admin may
   * read, tells them apart.
   */
  async function forbiddenOrOver(response: Response, sentWith: string): Promise<Response> {
    const me = await send(
      new Request(new URL(ADMIN_ME_PATH, options.baseUrl || pageOrigin()), { headers: { authorization: `Bearer ${sentWith}` } }),
    );
    if (me.status === 401 || me.status === 403) await endSession(response, sentWith);
    return response;
  }

  const headers: Middleware = {
    onRequest({ request, schemaPath }) {
      if (tokens && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${tokens.accessToken}`);
      if (IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key')) {
        request.headers.set('idempotency-key', newKey());
      }
      return request;
    },
  };

  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchWithRefresh });
  api.use(headers);
  return {
    api,
    realm,
    url: (path) => new URL(path, options.baseUrl || pageOrigin()),
    fetch: (request) => fetchWithRefresh(withToken(request)),
    tokens: () => tokens,
    signIn: (next) => setTokens(next),
    signOut: () => setTokens(null),
  };
}

/**
 * The data of a call, or its problem thrown as an ApiProblem:
 * `const me = await ok(market.api.GET('/api/me'))`.
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw problemFrom(response, error);
  return data as T;
}
