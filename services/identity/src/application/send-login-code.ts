import { problems } from '@market/shared/http';
import { normalizePhone } from '../domain/phone';
import { generateSmsCode, SMS_CODE_TTL_SECONDS, SMS_RESEND_AFTER_SECONDS } from '../domain/sms-policy';
import type { IdentityDeps } from './deps';

export async function sendLoginCode(deps: IdentityDeps, phoneInput: string, ip: string | null) {
  const phone = normalizePhone(phoneInput);
  const wait = await deps.smsCodes.holdResendSlot(phone);
  if (wait > 0) throw problems.rateLimited(wait);
  const quotas: Array<[string, number]> = [
    [`sms:phone:${phone}`, deps.config.SMS_DAILY_LIMIT_PER_PHONE],
    [`sms:ip:${ip ?? 'unknown'}`, deps.config.SMS_DAILY_LIMIT_PER_IP],
  ];
  for (const [name, limit] of quotas) {
    const retryAfter = await deps.quotas.consume(name, limit);
    if (retryAfter > 0) throw problems.rateLimited(retryAfter);
  }

  const code = generateSmsCode();
  await deps.smsCodes.save(phone, code);
  try {
    await deps.sms.send(phone, code);
  } catch {
    await deps.smsCodes.discard(phone);
    throw problems.upstreamUnavailable(503);
  }
  return {
    expires_in: SMS_CODE_TTL_SECONDS,
    resend_after: SMS_RESEND_AFTER_SECONDS,
    ...(deps.sms.exposesCodes ? { dev_code: code } : {}),
  };
}
