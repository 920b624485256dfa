import { type TokenPair, type z } from '@market/contracts';
import { recordAudit } from '@market/shared/events';
import { Unauthenticated, type DomainError } from '@market/shared/errors';
import { RefreshTokenExpired, RefreshTokenRevoked, UserFrozen } from '../domain/errors';
import { judgeRefreshToken } from '../domain/refresh-token';
import { findRefreshTokenForUpdate, markRotated, revokeSession } from '../persistence/session-repository';
import { findUserById } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { hashRefreshToken, issueTokenPair, revokeAccessTokens } from './session-tokens';

type Outcome = { pair: z.infer<typeof TokenPair> } | { refusal: DomainError };

/**
 * Exchanges a refresh token for a new pair in the same family. Refusals are returned rather than
 * thrown inside the transaction, so that ending a family on reuse commits before the client hears 401.
 */
export async function rotateRefreshToken(deps: IdentityDeps, refreshToken: string, ip: string | null) {
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const token = await findRefreshTokenForUpdate(tx, hashRefreshToken(refreshToken));
    const user = token && (await findUserById(tx, token.user_id, 'share'));
    // A freeze also ends the sessions; saying why is more use to the client than "revoked".
    if (user?.frozen) return { refusal: new UserFrozen() };
    const verdict = judgeRefreshToken(token, new Date());
    if (!token || !user || verdict === 'unknown') return { refusal: new Unauthenticated('refresh token is not valid') };
    if (verdict === 'revoked') return { refusal: new RefreshTokenRevoked() };
    if (verdict === 'expired') return { refusal: new RefreshTokenExpired() };
    if (verdict === 'reused') {
      await revokeSession(tx, token.session_id, token.user_id, 'refresh_reuse');
      await recordAudit(deps.events, tx, { kind: 'user', sub: token.user_id, sid: token.session_id, ip }, {
        action: 'auth.refresh_reuse',
        biz_type: 'session',
        biz_id: token.session_id,
        detail: { effect: 'session revoked' },
        result: 'failure',
      });
      await revokeAccessTokens(deps, [token.session_id]);
      return { refusal: new RefreshTokenRevoked() };
    }
    await markRotated(tx, token.id);
    return { pair: await issueTokenPair(deps, tx, user, token.session_id) };
  });
  if ('refusal' in outcome) throw outcome.refusal;
  return outcome.pair;
}
