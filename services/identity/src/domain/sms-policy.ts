import { randomInt } from 'node:crypto';

/** docs/rules.md §3: 6-digit codes, 5 min life, one use, at most 5 wrong tries, resend no sooner than 60 s. */
export const SMS_CODE_TTL_SECONDS = 300;
export const SMS_RESEND_AFTER_SECONDS = 60;
export const SMS_MAX_WRONG_TRIES = 5;

export function generateSmsCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** Daily caps count per UTC day. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function secondsUntilNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.ceil((next - now.getTime()) / 1000);
}
