import { auditRefusal } from '@market/shared/events';
import { RateLimited } from '@market/shared/errors';
import { addressKey } from '@market/shared/http';
import { SmsBudgetSpent, SmsProviderThrottled, SmsProviderUnavailable, UserFrozen } from '../domain/errors';
import { maskPhone, normalizePhone } from '../domain/phone';
import { generateSmsCode, type QuotaPeriod, SMS_CODE_TTL_SECONDS, SMS_RESEND_AFTER_SECONDS } from '../domain/sms-policy';
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

  // the global budget is asked last, so a request the per-phone or per-address caps refuse spends none of it
  const quotas: Array<[string, number, QuotaPeriod]> = [
    [`sms:phone:${phone}`, deps.config.SMS_DAILY_LIMIT_PER_PHONE, 'day'],
    [`sms:ip:${addressKey(ip)}`, deps.config.SMS_DAILY_LIMIT_PER_IP, 'day'],
    ['sms:all', deps.config.SMS_HOURLY_BUDGET, 'hour'],
  ];
  const taken: Array<[string, number, QuotaPeriod]> = [];
  const giveBack = () => Promise.all(taken.map(([name, limit, period]) => deps.quotas.refund(name, limit, period)));
  for (const [name, limit, period] of quotas) {
    const retryAfter = await deps.quotas.consume(name, limit, period);
    if (retryAfter > 0) {
      await giveBack();
      throw name === 'sms:all' ? new SmsBudgetSpent(retryAfter) : new RateLimited(retryAfter);
    }
    taken.push([name, limit, period]);
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
