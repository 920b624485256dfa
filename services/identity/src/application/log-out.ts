import { type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { findSessionOfRefreshToken, revokeSession } from '../persistence/session-repository';
import type { IdentityDeps } from './deps';
import { hashRefreshToken, revokeAccessTokens } from './session-tokens';

/** Ends the caller's session and, when given, the family of a refresh token of the same user. */
export async function logOut(deps: IdentityDeps, identity: UserIdentity, refreshToken: string | undefined) {
  await deps.db.transaction(async (tx) => {
    const sessionIds = new Set([identity.sid]);
    if (refreshToken && isUuid(identity.sub)) {
      const other = await findSessionOfRefreshToken(tx, hashRefreshToken(refreshToken));
      if (other?.user_id === identity.sub) sessionIds.add(other.session_id);
    }
    if (isUuid(identity.sub)) {
      for (const sid of sessionIds) if (isUuid(sid)) await revokeSession(tx, sid, identity.sub, 'logout');
    }
    await recordAudit(deps.events, tx, identity, { action: 'auth.logout', biz_type: 'user', biz_id: identity.sub });
    await revokeAccessTokens(deps, [...sessionIds]);
  });
}
