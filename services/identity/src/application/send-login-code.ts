import { auditRefusal } from '@market/shared/events';
import { RateLimited } from '@market/shared/errors';
import { SmsProviderThrottled, SmsProviderUnavailable, UserFrozen } from '../domain/errors';
import { maskPhone, normalizePhone } from '../domain/phone';
import { generateSmsCode, SMS_CODE_TTL_SECONDS, SMS_RESEND_AFTER_SECONDS } from '../domain/sms-policy';
import { findUserByPhone } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { ProviderRefusal } from './ports';

/**
 * Sends a login code. The code is stored only once the provider has taken the message, so a failed
 * send leaves the phone's previous code (if any) working and no code that nobody received; the
 * daily counts it took are given back, since no message went out. After an outage the resend
 * interval is freed too (the user may try again at once); after the provider's own frequency
 * refusal it is kept, so the phone is not asked for again straight away.
 */
export async function sendLoginCode(deps: IdentityDeps, phoneInput: string, ip: string | null) {
  const phone = normalizePhone(phoneInput);
  const user = await findUserByPhone(deps.db, phone);
  if (user?.frozen) {
    // A frozen account could otherwise have the system send codes to its number at will.
    await auditRefusal(deps.db, deps.events, { kind: 'anonymous', ip }, {
      action: 'auth.sms_send',
      biz_type: 'user',
      biz_id: user.id,
      detail: { phone_masked: maskPhone(phone), reason: 'user_frozen' },
    });
    throw new UserFrozen();
  }
  const wait = await deps.smsCodes.holdResendSlot(phone);
  if (wait > 0) throw new RateLimited(wait);

  const quotas: Array<[string, number]> = [
    [`sms:phone:${phone}`, deps.config.SMS_DAILY_LIMIT_PER_PHONE],
    [`sms:ip:${ip ?? 'unknown'}`, deps.config.SMS_DAILY_LIMIT_PER_IP],
  ];
  const taken: Array<[string, number]> = [];
  const giveBack = () => Promise.all(taken.map(([name, limit]) => deps.quotas.refund(name, limit)));
  for (const [name, limit] of quotas) {
    const retryAfter = await deps.quotas.consume(name, limit);
    if (retryAfter > 0) {
      await giveBack();
      throw new RateLimited(retryAfter);
    }
    taken.push([name, limit]);
  }

  const code = generateSmsCode();
  try {
    await deps.sms.send(phone, code);
  } catch (err) {
    await giveBack();
    if (err instanceof ProviderRefusal && err.kind === 'throttled') {
      throw new SmsProviderThrottled(SMS_RESEND_AFTER_SECONDS);
    }
    await deps.smsCodes.releaseResendSlot(phone);
    throw new SmsProviderUnavailable();
  }
  await deps.smsCodes.save(phone, code);
  return {
    expires_in: SMS_CODE_TTL_SECONDS,
    resend_after: SMS_RESEND_AFTER_SECONDS,
    ...(deps.sms.exposesCodes ? { dev_code: code } : {}),
  };
}
