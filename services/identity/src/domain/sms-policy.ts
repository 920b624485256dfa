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

/** The calendar periods a quota counts in: a UTC day, or a UTC hour. */
export type QuotaPeriod = 'day' | 'hour';

/** The period `now` falls in, as it appears in a quota's key (`2026-11-22`, `2026-11-22T09`). */
export function periodOf(period: QuotaPeriod, now: Date): string {
  return period === 'day' ? utcDay(now) : now.toISOString().slice(0, 13);
}

export function secondsUntilNextPeriod(period: QuotaPeriod, now: Date): number {
  if (period === 'day') return secondsUntilNextUtcDay(now);
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), now.getUTCHours() + 1);
  return Math.ceil((next - now.getTime()) / 1000);
}
