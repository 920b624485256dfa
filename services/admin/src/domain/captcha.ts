import { createHash, timingSafeEqual } from 'node:crypto';

export const CAPTCHA_TTL_SECONDS = 120;
export const CAPTCHA_LENGTH = 4;
/** Characters a person confuses in a noisy image. */
export const CAPTCHA_IGNORED_CHARS = '0oO1iIlL';

/** Answers compare case-insensitively; only this digest is stored, bound to its captcha id. */
export function captchaDigest(captchaId: string, answer: string): string {
  return createHash('sha256').update(`${captchaId}:${answer.trim().toLowerCase()}`).digest('hex');
}

export function captchaMatches(storedDigest: string, captchaId: string, answer: string): boolean {
  const given = Buffer.from(captchaDigest(captchaId, answer), 'hex');
  const stored = Buffer.from(storedDigest, 'hex');
  return stored.length === given.length && timingSafeEqual(stored, given);
}
