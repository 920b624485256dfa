import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';

/** Ordinary users and the back office use separate secrets and audiences, so neither token opens the other's routes. */
export type Realm = 'user' | 'admin';

export const AUDIENCES: Record<Realm, string> = { user: 'market-user', admin: 'market-admin' };

export interface AccessClaims {
  sub: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

export function signAccessToken(realm: Realm, subject: string, sessionId: string, secret: string, ttlSeconds: number) {
  const jti = randomUUID();
  const token = jwt.sign({ sid: sessionId }, secret, {
    algorithm: 'HS256',
    audience: AUDIENCES[realm],
    issuer: realm === 'user' ? 'identity' : 'admin',
    subject,
    jwtid: jti,
    expiresIn: ttlSeconds,
  });
  return { token, jti, expiresIn: ttlSeconds };
}

export type VerifyResult =
  | { ok: true; claims: AccessClaims }
  | { ok: false; reason: 'expired' | 'invalid' };

export function verifyAccessToken(realm: Realm, token: string, secret: string): VerifyResult {
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'], audience: AUDIENCES[realm] }) as jwt.JwtPayload;
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.jti !== 'string') {
      return { ok: false, reason: 'invalid' };
    }
    return {
      ok: true,
      claims: { sub: payload.sub, sid: payload.sid, jti: payload.jti, iat: payload.iat ?? 0, exp: payload.exp ?? 0 },
    };
  } catch (err) {
    return { ok: false, reason: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
  }
}
