import { createMarketClient, type Schema, type Tokens } from '@market/sdk';

/** The signed-in admin as the console keeps it for the tab's lifetime (sessionStorage: closing the tab ends it). */
export interface Session {
  tokens: Tokens;
  admin: Schema<'CurrentAdmin'>;
}

const KEY = 'market.console.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function saveSession(session: Session | null) {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

/** Where a session that ended on the server (disabled admin, revoked token) sends the operator. */
function toLogin() {
  saveSession(null);
  if (!location.pathname.endsWith('/login')) location.assign(`${import.meta.env.BASE_URL}login?expired=1`);
}

/** The one API client of the console, same-origin with the gateway. */
export const market = createMarketClient({
  baseUrl: location.origin,
  realm: 'admin',
  tokens: loadSession()?.tokens ?? null,
  onTokens: (tokens) => {
    const current = loadSession();
    if (tokens && current) saveSession({ ...current, tokens });
  },
  onSignedOut: toLogin,
});
