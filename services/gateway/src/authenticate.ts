import {
  problems,
  verifyAccessToken,
  type Revocations,
  type AccessClaims,
  type AnyRoute,
  type Identity,
  type Realm,
} from '@market/shared';

export type AuthSecrets = Record<Realm, string>;

/** Verified tokens are remembered until they expire; revocation is still checked on every request. */
class VerifiedTokenCache {
  private readonly entries = new Map<string, AccessClaims>();

  constructor(private readonly maxEntries = 50_000) {}

  get(token: string): AccessClaims | undefined {
    const claims = this.entries.get(token);
    if (claims && claims.exp * 1000 <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return claims;
  }

  set(token: string, claims: AccessClaims) {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(token, claims);
  }
}

function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  return match ? match[1]! : null;
}

export function createAuthenticator(secrets: AuthSecrets, revocations: Revocations) {
  const caches: Record<Realm, VerifiedTokenCache> = { user: new VerifiedTokenCache(), admin: new VerifiedTokenCache() };

  async function verify(realm: Realm, token: string, ip: string | null): Promise<Identity> {
    let claims = caches[realm].get(token);
    if (!claims) {
      const result = verifyAccessToken(realm, token, secrets[realm]);
      if (!result.ok) throw result.reason === 'expired' ? problems.tokenExpired() : problems.unauthenticated('token is not valid here');
      claims = result.claims;
      caches[realm].set(token, claims);
    }
    // Without Redis a revoked token cannot be told from a live one: refuse rather than guess.
    const state = await Promise.race([
      revocations.sessionState(realm, claims.sub, claims.sid),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('revocation check timed out')), 2000).unref()),
    ]).catch(() => {
      throw problems.upstreamUnavailable(503);
    });
    if (state === 'revoked') throw problems.tokenRevoked();
    if (state === 'blocked') throw realm === 'user' ? problems.userFrozen() : problems.forbidden('this admin account is disabled');
    return { kind: realm, sub: claims.sub, sid: claims.sid, ip };
  }

  /**
   * The caller's identity for a route: admin routes need an admin token, user routes a user token;
   * on public routes a user token is optional but, when sent, must be valid. The admin login and
   * captcha routes are public and ignore any token.
   */
  return async function authenticate(route: AnyRoute, authorization: string | undefined, ip: string | null): Promise<Identity> {
    const token = bearerToken(authorization);
    if (token === null) throw problems.unauthenticated('Authorization must be "Bearer <token>"');
    if (route.auth === 'admin' || route.auth === 'user') {
      if (token === undefined) throw problems.unauthenticated();
      return verify(route.auth, token, ip);
    }
    if (token === undefined || route.path.startsWith('/api/admin/')) return { kind: 'anonymous', ip };
    return verify('user', token, ip);
  };
}
