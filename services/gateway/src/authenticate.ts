import { AdminRole, permissionsOf, rolesAllow, type AnyRoute } from '@market/contracts';
import {
  ExpiringCache,
  verifyAccessToken,
  type Revocations,
  type AccessClaims,
  type Identity,
  type Realm,
} from '@market/shared/auth';
import { problems } from '@market/shared/http';

export type AuthSecrets = Record<Realm, string>;

function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  return match ? match[1]! : null;
}

export function createAuthenticator(secrets: AuthSecrets, revocations: Revocations) {
  // Verified tokens are remembered until they expire; revocation is still checked on every request.
  const caches: Record<Realm, ExpiringCache<AccessClaims>> = { user: new ExpiringCache(50_000), admin: new ExpiringCache(50_000) };

  function claimsOf(realm: Realm, token: string): AccessClaims {
    let claims = caches[realm].get(token);
    if (!claims) {
      const result = verifyAccessToken(realm, token, secrets[realm]);
      if (!result.ok) throw result.reason === 'expired' ? problems.tokenExpired() : problems.unauthenticated('token is not valid here');
      claims = result.claims;
      caches[realm].set(token, claims, claims.exp * 1000);
    }
    return claims;
  }

  // Without Redis a revoked token cannot be told from a live one: refuse rather than guess. The
  // Redis client bounds the wait (REDIS_COMMAND_TIMEOUT_MS), so a stalled Redis is a quick 503.
  const redisDown = () => {
    throw problems.upstreamUnavailable(503);
  };

  async function verifyUser(token: string, ip: string | null): Promise<Identity> {
    const claims = claimsOf('user', token);
    const state = await revocations.sessionState('user', claims.sub, claims.sid).catch(redisDown);
    if (state === 'revoked') throw problems.tokenRevoked();
    if (state === 'blocked') throw problems.userFrozen();
    return { kind: 'user', sub: claims.sub, sid: claims.sid, ip, exp: claims.exp };
  }

  /**
   * An admin token opens a route only for a session the admin service opened and has not ended,
   * and only when the roles the admin holds now grant the route's permission (ADR 0033, 0034): the
   * session and the roles are read with the revocation state, so a change shows on the next request.
   * The permissions the roles grant travel in the assertion, for the service to check again (ADR 0053).
   */
  async function verifyAdmin(route: AnyRoute, token: string, ip: string | null): Promise<Identity> {
    const claims = claimsOf('admin', token);
    const session = await revocations.adminSessionState(claims.sub, claims.sid).catch(redisDown);
    if (session.state === 'revoked') throw problems.tokenRevoked();
    if (session.state === 'blocked') throw problems.forbidden('this admin account is disabled');
    if (session.state === 'unknown') throw problems.unauthenticated('this session does not exist');
    const roles = session.roles.filter((role): role is AdminRole => AdminRole.safeParse(role).success);
    // A contract without a permission cannot be built (the type checker refuses it); refuse anyway.
    if (!route.permission || !rolesAllow(roles, route.permission)) {
      throw problems.forbidden(`this needs the permission ${route.permission ?? '(none declared)'}, which your roles do not grant`);
    }
    return { kind: 'admin', sub: claims.sub, sid: claims.sid, ip, exp: claims.exp, perms: permissionsOf(roles) };
  }

  /**
   * The caller's identity for a route: admin routes need an admin token, user routes a user token.
   * A public route reads `Authorization` only when its contract's token policy is `optional`, and
   * then a token sent must be a valid user token; otherwise the header is never looked at.
   * An anonymous caller is known at once (no promise); a token is checked against revocation in
   * Redis, so its identity comes as a promise. A refusal is thrown (or rejected) as a problem.
   */
  return function authenticate(route: AnyRoute, authorization: string | undefined, ip: string | null): Identity | Promise<Identity> {
    if (route.auth === 'public' && route.token !== 'optional') return { kind: 'anonymous', ip };
    const token = bearerToken(authorization);
    if (token === null) throw problems.unauthenticated('Authorization must be "Bearer <token>"');
    if (route.auth === 'admin' || route.auth === 'user') {
      if (token === undefined) throw problems.unauthenticated();
      return route.auth === 'admin' ? verifyAdmin(route, token, ip) : verifyUser(token, ip);
    }
    if (token === undefined) return { kind: 'anonymous', ip };
    return verifyUser(token, ip);
  };
}
