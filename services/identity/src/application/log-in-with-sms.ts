import { type TokenPair, type z } from '@market/contracts';
import { auditRefusal, recordAudit } from '@market/shared/events';
import { SmsCodeWrong, UserFrozen } from '../domain/errors';
import { defaultNickname, maskPhone, normalizePhone } from '../domain/phone';
import { createSession } from '../persistence/session-repository';
import { findUserByPhone, registerPhoneUser } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { issueTokenPair } from './session-tokens';

/** Logs in with a code sent to the phone; a phone seen for the first time registers a user. */
export async function logInWithSms(
  deps: IdentityDeps,
  input: { phone: string; code: string },
  ip: string | null,
): Promise<z.infer<typeof TokenPair>> {
  const phone = normalizePhone(input.phone);
  const refused = (reason: string) =>
    auditRefusal(deps.db, deps.events, { kind: 'anonymous', ip }, {
      action: 'auth.login',
      biz_type: 'user',
      detail: { method: 'sms', phone_masked: maskPhone(phone), reason },
    });

  if ((await deps.smsCodes.consume(phone, input.code)) !== 'ok') {
    await refused('sms_code_invalid');
    throw new SmsCodeWrong();
  }
  try {
    return await deps.db.transaction(async (tx) => {
      const registered = await registerPhoneUser(tx, phone, defaultNickname(phone));
      const user = (await findUserByPhone(tx, phone, 'share'))!;
      if (user.frozen) throw new UserFrozen();
      if (registered) {
        await deps.events.publish(tx, 'user.registered', {
          user_id: user.id,
          phone_masked: maskPhone(phone),
          nickname: user.nickname,
          registered_at: user.created_at.toISOString(),
        });
      }
      const sessionId = await createSession(tx, user.id);
      await recordAudit(deps.events, tx, { kind: 'user', sub: user.id, sid: sessionId, ip }, {
        action: 'auth.login',
        biz_type: 'user',
        biz_id: user.id,
        detail: { method: 'sms', registered },
      });
      return issueTokenPair(deps, tx, user, sessionId);
    });
  } catch (err) {
    if (err instanceof UserFrozen) await refused('user_frozen');
    throw err;
  }
}
