import { createHash, randomBytes } from 'node:crypto';
import { type TokenPair, type z } from '@market/contracts';
import { signAccessToken } from '@market/shared/auth';
import { type Tx } from '@market/shared/db';
import { insertRefreshToken } from '../persistence/session-repository';
import type { UserRecord } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { toUserView } from './user-view';

/** Refresh tokens are opaque random strings; only their SHA-256 is stored. */
export function hashRefreshToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** A new refresh token in the session's family and an access token carrying the session as `sid`. */
export async function issueTokenPair(
  deps: IdentityDeps,
  tx: Tx,
  user: UserRecord,
  sessionId: string,
): Promise<z.infer<typeof TokenPair>> {
  const refreshToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + deps.config.REFRESH_TOKEN_TTL_SECONDS * 1000);
  await insertRefreshToken(tx, sessionId, hashRefreshToken(refreshToken), expiresAt);
  const access = signAccessToken('user', user.id, sessionId, deps.config.USER_TOKEN_SECRET, deps.config.ACCESS_TOKEN_TTL_SECONDS);
  return {
    access_token: access.token,
    refresh_token: refreshToken,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    user: toUserView(user),
  };
}

/**
 * Makes the gateway refuse the sessions' access tokens on the very next request. The entry only
 * has to outlive the longest access token. Called inside the transaction that ends the sessions,
 * so a Redis failure rolls the change back instead of leaving live tokens behind.
 */
export async function revokeAccessTokens(deps: IdentityDeps, sessionIds: string[]) {
  await Promise.all(
    sessionIds.map((sid) => deps.revocations.revokeSession('user', sid, deps.config.ACCESS_TOKEN_TTL_SECONDS)),
  );
}
