import { type AdminIdentity } from '@market/shared/auth';
import { isUuid, type Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { InvalidState } from '@market/shared/errors';
import { RedisUnavailableError } from '@market/shared/redis';
import { UserNotFound } from '../domain/errors';
import { revokeLiveSessionsOf } from '../persistence/session-repository';
import { findUserById, freezeIfActive, unfreezeIfFrozen } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { revokeAccessTokens } from './session-tokens';
import { toUserAdminView } from './user-view';

/** Why a conditional move matched nothing: the user is absent, or already where the move leads. */
async function refusal(tx: Tx, userId: string, alreadyThere: string) {
  return (await findUserById(tx, userId)) ? new InvalidState(alreadyThere) : new UserNotFound();
}

/**
 * Freezes a user: every session ends (refresh tokens die), every access token is revoked and the
 * user is blocked at the gateway. The Redis writes come last inside the transaction, so a Redis
 * failure rolls the freeze back instead of leaving a frozen user with working tokens.
 */
export async function freezeUser(deps: IdentityDeps, admin: AdminIdentity, userId: string, reason: string) {
  if (!isUuid(userId)) throw new UserNotFound();
  try {
    return await freezeInTransaction(deps, admin, userId, reason);
  } catch (err) {
    // A block that timed out can still land when Redis resumes, after the freeze rolled back: the
    // user would be refused everywhere yet not frozen, and unfreeze would refuse to lift it. The
    // unblock rides the same connection behind the block, so it lands after it.
    if (err instanceof RedisUnavailableError) await deps.revocations.unblockSubject('user', userId).catch(() => undefined);
    throw err;
  }
}

function freezeInTransaction(deps: IdentityDeps, admin: AdminIdentity, userId: string, reason: string) {
  return deps.db.transaction(async (tx) => {
    if (!(await freezeIfActive(tx, userId, reason))) throw await refusal(tx, userId, 'user is already frozen');
    const sessionIds = await revokeLiveSessionsOf(tx, userId, 'frozen');
    const user = (await findUserById(tx, userId))!;
    await deps.events.publish(tx, 'user.frozen', {
      user_id: userId,
      reason,
      frozen_by: admin.sub,
      frozen_at: user.frozen_at!.toISOString(),
    });
    await recordAudit(deps.events, tx, admin, { action: 'user.freeze', biz_type: 'user', biz_id: userId, detail: { reason } });
    await deps.revocations.blockSubject('user', userId);
    // Also per session: the tokens must stay dead after an unfreeze lifts the block.
    await revokeAccessTokens(deps, sessionIds);
    return toUserAdminView(user);
  });
}

export async function unfreezeUser(deps: IdentityDeps, admin: AdminIdentity, userId: string) {
  if (!isUuid(userId)) throw new UserNotFound();
  return deps.db.transaction(async (tx) => {
    if (!(await unfreezeIfFrozen(tx, userId))) throw await refusal(tx, userId, 'user is not frozen');
    const user = (await findUserById(tx, userId))!;
    await deps.events.publish(tx, 'user.unfrozen', {
      user_id: userId,
      unfrozen_by: admin.sub,
      unfrozen_at: new Date().toISOString(),
    });
    await recordAudit(deps.events, tx, admin, { action: 'user.unfreeze', biz_type: 'user', biz_id: userId });
    await deps.revocations.unblockSubject('user', userId);
    return toUserAdminView(user);
  });
}
