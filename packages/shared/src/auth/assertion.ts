import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { INTERNAL_CALLERS, type InternalCaller } from '@market/contracts';
import { ExpiringCache } from './expiring-cache';

/**
 * The internal identity assertion: the gateway (or a calling service) signs who the caller is;
 * every service verifies it and refuses requests without it, so a service reached directly
 * cannot be fooled by a forged identity header.
 */
export const ASSERTION_HEADER = 'x-internal-assertion';
const AUDIENCE = 'market-internal';
const TTL_SECONDS = 60;
/** The only issuer of user, admin and anonymous identities; a service issues only its own. */
export const GATEWAY_ISSUER = 'gateway';
export type AssertionIssuer = InternalCaller;

export const Identity = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('anonymous'), ip: z.string().nullable() }),
  // exp: when the caller's access token expires (seconds since epoch), for what outlives the request (a stream)
  z.object({ kind: z.literal('user'), sub: z.string(), sid: z.string(), ip: z.string().nullable(), exp: z.number().optional() }),
  z.object({ kind: z.literal('admin'), sub: z.string(), sid: z.string(), ip: z.string().nullable(), exp: z.number().optional() }),
  z.object({ kind: z.literal('service'), sub: z.enum(INTERNAL_CALLERS as [InternalCaller, ...InternalCaller[]]), ip: z.null().default(null) }),
]);
export type Identity = z.infer<typeof Identity>;
export type UserIdentity = Extract<Identity, { kind: 'user' }>;
export type AdminIdentity = Extract<Identity, { kind: 'admin' }>;

export function signAssertion(identity: Identity, secret: string, issuer: AssertionIssuer): string {
  return jwt.sign({ id: identity }, secret, {
    algorithm: 'HS256',
    audience: AUDIENCE,
    issuer,
    expiresIn: TTL_SECONDS,
  });
}

/**
 * What tells identities apart, as a cache key: every field of every kind, each one written so no
 * two identities share a key. An anonymous caller (most public reads) costs no serialization.
 */
function signerKey(identity: Identity): string {
  if (identity.kind === 'anonymous') return identity.ip === null ? 'anonymous' : `anonymous ${identity.ip}`;
  return JSON.stringify(identity);
}

/**
 * Signing costs as much as a small request, so a signer reuses an assertion for the same caller
 * for half its life; the other half leaves room for slow upstreams.
 */
export function createAssertionSigner(secret: string, issuer: AssertionIssuer, maxEntries = 10_000) {
  const cache = new ExpiringCache<string>(maxEntries);
  return (identity: Identity): string => {
    const key = signerKey(identity);
    const hit = cache.get(key);
    if (hit) return hit;
    const token = signAssertion(identity, secret, issuer);
    cache.set(key, token, Date.now() + (TTL_SECONDS * 1000) / 2);
    return token;
  };
}

/**
 * A service may speak only as itself, and only the gateway for users, admins and anonymous
 * callers; an assertion whose issuer does not match is refused. With one shared secret this stops
 * a service's mistakes (signing a forwarded user identity, or another service's), not an attacker
 * holding the secret (ADR 0004).
 */
function issuerMayAssert(issuer: unknown, identity: Identity): boolean {
  return identity.kind === 'service' ? issuer === identity.sub : issuer === GATEWAY_ISSUER;
}

/** Verifies an assertion; remembers verified ones until they expire, since the gateway reuses them. */
export function createAssertionVerifier(secret: string, maxEntries = 10_000) {
  const cache = new ExpiringCache<Identity>(maxEntries);
  return (token: string | undefined): Identity | null => {
    if (!token) return null;
    const hit = cache.get(token);
    if (hit) return hit;
    try {
      const payload = jwt.verify(token, secret, { algorithms: ['HS256'], audience: AUDIENCE }) as jwt.JwtPayload;
      const identity = Identity.parse(payload.id);
      if (!issuerMayAssert(payload.iss, identity)) return null;
      cache.set(token, identity, (payload.exp ?? 0) * 1000);
      return identity;
    } catch {
      return null;
    }
  };
}
