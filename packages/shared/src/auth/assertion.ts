import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { AdminPermission, INTERNAL_CALLERS, type InternalCaller, type RoutePermission, type ServiceName } from '@market/contracts';
import { ExpiringCache } from './expiring-cache';
import type { PublicKeyEntry, PublicKeys, SigningKey } from './internal-keys';

/**
 * The internal identity assertion (ADR 0053): the gateway signs who the caller is, a service
 * signs for itself, each with its own Ed25519 key; every service verifies it and refuses requests
 * without it, so a service reached directly cannot be fooled by a forged identity header, and a
 * service's key cannot speak for a user, an admin or another service.
 */
export const ASSERTION_HEADER = 'x-internal-assertion';
/** How long an assertion is taken; it is made for one method and path, so it needs to outlive only the request's trip. */
export const ASSERTION_TTL_SECONDS = 30;
/** Clock drift between processes that a receiver forgives. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** The only issuer of user, admin and anonymous identities; a service issues only its own. */
export const GATEWAY_ISSUER = 'gateway';
export type AssertionIssuer = InternalCaller;

export const Identity = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('anonymous'), ip: z.string().nullable() }),
  // exp: when the caller's access token expires (seconds since epoch), for what outlives the request (a stream)
  z.object({ kind: z.literal('user'), sub: z.string(), sid: z.string(), ip: z.string().nullable(), exp: z.number().optional() }),
  // perms: what the admin's roles grant, as the gateway read them with the session; each service checks its routes' permission again
  z.object({
    kind: z.literal('admin'),
    sub: z.string(),
    sid: z.string(),
    ip: z.string().nullable(),
    exp: z.number().optional(),
    perms: z.array(AdminPermission),
  }),
  z.object({ kind: z.literal('service'), sub: z.enum(INTERNAL_CALLERS as [InternalCaller, ...InternalCaller[]]), ip: z.null().default(null) }),
]);
export type Identity = z.infer<typeof Identity>;
export type UserIdentity = Extract<Identity, { kind: 'user' }>;
export type AdminIdentity = Extract<Identity, { kind: 'admin' }>;

/**
 * What an assertion is made for: the service that receives it, and the request's method and path
 * (the path as the receiver matches it: without the query string, percent-encoding kept).
 */
export interface AssertionTarget {
  audience: ServiceName;
  method: string;
  path: string;
}

/** `issuedAt`: seconds since epoch, now unless told (tests make stale assertions with it). */
export function signAssertion(identity: Identity, signing: SigningKey, target: AssertionTarget, issuedAt = Math.floor(Date.now() / 1000)): Promise<string> {
  return new SignJWT({ id: identity, htm: target.method.toUpperCase(), htu: target.path })
    .setProtectedHeader({ alg: 'EdDSA', kid: signing.kid })
    .setIssuer(signing.issuer)
    .setAudience(target.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_TTL_SECONDS)
    .sign(signing.key);
}

/**
 * What tells identities apart, as a cache key: every field of every kind, each one written so no
 * two identities share a key. An anonymous caller (most public reads) costs no serialization.
 */
function identityKey(identity: Identity): string {
  if (identity.kind === 'anonymous') return identity.ip === null ? 'anonymous' : `anonymous ${identity.ip}`;
  return JSON.stringify(identity);
}

export type AssertionSigner = (identity: Identity, target: AssertionTarget) => string | Promise<string>;

/**
 * Signs assertions, reusing one for the same caller, receiver, method and path for half its
 * life (the other half leaves room for slow upstreams): a repeated request costs a map lookup,
 * answered at once; a new one waits for its signature.
 */
export function createAssertionSigner(signing: SigningKey, maxEntries = 10_000): AssertionSigner {
  const cache = new ExpiringCache<string>(maxEntries);
  return (identity, target) => {
    const key = `${target.audience} ${target.method} ${target.path} ${identityKey(identity)}`;
    const hit = cache.get(key);
    if (hit) return hit;
    return signAssertion(identity, signing, target).then((token) => {
      cache.set(key, token, Date.now() + (ASSERTION_TTL_SECONDS * 1000) / 2);
      return token;
    });
  };
}

/**
 * A service may speak only as itself, and only the gateway for users, admins and anonymous
 * callers. The issuer is the one the verifying key belongs to, so this holds against whoever
 * holds one service's key, not only against mistakes.
 */
function issuerMayAssert(issuer: InternalCaller, identity: Identity): boolean {
  return identity.kind === 'service' ? issuer === identity.sub : issuer === GATEWAY_ISSUER;
}

/** Verifies an assertion for the request it came with: the identity, or null when it is refused. */
export type AssertionVerifier = (token: string | undefined, method: string, path: string) => Identity | null | Promise<Identity | null>;

interface Verified {
  identity: Identity;
  htm: unknown;
  htu: unknown;
}

const Claims = z.object({ id: z.unknown(), htm: z.string(), htu: z.string(), iat: z.number(), exp: z.number() });

/**
 * Verifies assertions made for `audience`: signed by a known key (by `kid`) with EdDSA, not
 * expired nor made to live longer than an assertion does, by an issuer that may assert the
 * identity, for this request's method and path. Verified assertions are remembered until they
 * expire (the gateway reuses them), still checked against each request's method and path.
 */
export function createAssertionVerifier(audience: ServiceName, publicKeys: PublicKeys, maxEntries = 10_000): AssertionVerifier {
  const cache = new ExpiringCache<Verified>(maxEntries);
  const matches = (verified: Verified, method: string, path: string) =>
    verified.htm === method.toUpperCase() && verified.htu === path ? verified.identity : null;

  async function verify(token: string, method: string, path: string): Promise<Identity | null> {
    let signer: PublicKeyEntry | undefined;
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          signer = header.kid === undefined ? undefined : publicKeys.get(header.kid);
          if (!signer) throw new Error('unknown key id');
          return signer.key;
        },
        { algorithms: ['EdDSA'], audience, maxTokenAge: ASSERTION_TTL_SECONDS + CLOCK_TOLERANCE_SECONDS, clockTolerance: CLOCK_TOLERANCE_SECONDS },
      );
      if (payload.iss !== signer!.issuer) return null;
      const claims = Claims.parse(payload);
      if (claims.exp - claims.iat > ASSERTION_TTL_SECONDS) return null;
      const identity = Identity.parse(claims.id);
      if (!issuerMayAssert(signer!.issuer, identity)) return null;
      const verified = { identity, htm: claims.htm, htu: claims.htu };
      cache.set(token, verified, claims.exp * 1000);
      return matches(verified, method, path);
    } catch {
      return null;
    }
  }

  return (token, method, path) => {
    if (!token) return null;
    const hit = cache.get(token);
    if (hit) return matches(hit, method, path);
    return verify(token, method, path);
  };
}

/** Whether an admin identity holds a route's declared permission (a route without one is refused). */
export function adminHolds(identity: AdminIdentity, permission: RoutePermission | undefined): boolean {
  if (permission === 'own_account') return true;
  return permission !== undefined && identity.perms.includes(permission);
}
