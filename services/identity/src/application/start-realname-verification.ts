import { type UserIdentity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { recordAudit } from '@market/shared/events';
import { Conflict, InvalidState, RateLimited } from '@market/shared/errors';
import { RealnameProviderThrottled, RealnameProviderUnavailable } from '../domain/errors';
import { REALNAME_STARTABLE, realnameOutcome, type VerifierDecision } from '../domain/realname';
import { secondsUntilNextUtcDay } from '../domain/sms-policy';
import { ID_NUMBER_SEALED, REAL_NAME_SEALED, recordRealnameOutcome } from '../persistence/realname-repository';
import { requireCurrentUser } from './current-user';
import type { IdentityDeps } from './deps';
import { ProviderRefusal } from './ports';
import { toRealnameView } from './realname-view';

/** Long enough for a verifier call; a crashed holder frees the user after this. */
const ATTEMPT_LOCK_SECONDS = 30;

/**
 * Asks the verifier about the person and records its answer. The verifier is called outside any
 * transaction (it is remote and may be slow); a per-user lock keeps two attempts from running at
 * once, and the final write is conditional, so a decided identity is never overwritten.
 */
export async function startRealnameVerification(
  deps: IdentityDeps,
  identity: UserIdentity,
  input: { real_name: string; id_number: string },
) {
  const user = await requireCurrentUser(deps.db, identity.sub);
  if (!REALNAME_STARTABLE.has(user.realname_status)) {
    throw new InvalidState(`real-name verification is ${user.realname_status}; it cannot be started again`);
  }
  const quota = `realname:${user.id}`;
  const retryAfter = await deps.quotas.consume(quota, deps.config.REALNAME_DAILY_ATTEMPTS);
  if (retryAfter > 0) throw new RateLimited(retryAfter);
  const release = await deps.locks.tryAcquire(`realname:${user.id}`, ATTEMPT_LOCK_SECONDS);
  if (!release) throw new Conflict('a real-name verification for this user is already running');
  try {
    const idNumber = input.id_number.toUpperCase();
    let decision: VerifierDecision;
    try {
      decision = await deps.verifier.verify({ realName: input.real_name, idNumber });
    } catch (err) {
      // The provider did not decide: nothing is recorded and the attempt is not the user's to lose.
      await deps.quotas.refund(quota, deps.config.REALNAME_DAILY_ATTEMPTS);
      if (err instanceof ProviderRefusal && err.kind === 'throttled') {
        throw new RealnameProviderThrottled(secondsUntilNextUtcDay(new Date()));
      }
      throw new RealnameProviderUnavailable();
    }
    const outcome = realnameOutcome(user.realname_status, decision);
    if (!outcome) throw new InvalidState(`the verifier answered ${decision}, which cannot follow ${user.realname_status}`);
    return await deps.db.transaction(async (tx) => {
      const row = await recordRealnameOutcome(tx, user.id, [...REALNAME_STARTABLE], {
        status: outcome,
        real_name_sealed: deps.secrets.seal(input.real_name, sealedAt(REAL_NAME_SEALED, user.id)),
        id_number_sealed: deps.secrets.seal(idNumber, sealedAt(ID_NUMBER_SEALED, user.id)),
      });
      if (!row) throw new InvalidState('real-name verification was decided meanwhile');
      await recordAudit(deps.events, tx, identity, {
        action: 'realname.start',
        biz_type: 'user',
        biz_id: user.id,
        detail: { outcome: row.status },
      });
      return toRealnameView(deps.secrets, row);
    });
  } finally {
    await release();
  }
}
