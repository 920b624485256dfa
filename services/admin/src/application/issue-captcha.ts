import { create } from 'svg-captcha';
import { v7 as uuidv7 } from 'uuid';
import type { Captcha, z } from '@market/contracts';
import { CAPTCHA_IGNORED_CHARS, CAPTCHA_LENGTH, CAPTCHA_TTL_SECONDS, captchaDigest } from '../domain/captcha';
import type { AdminDeps } from './deps';

export async function issueCaptcha(deps: Pick<AdminDeps, 'captchas' | 'captchaMode'>): Promise<z.infer<typeof Captcha>> {
  const { text, data } = create({ size: CAPTCHA_LENGTH, noise: 3, ignoreChars: CAPTCHA_IGNORED_CHARS });
  const captchaId = uuidv7();
  await deps.captchas.put(captchaId, captchaDigest(captchaId, text), CAPTCHA_TTL_SECONDS);
  return {
    captcha_id: captchaId,
    image: `data:image/svg+xml;base64,${Buffer.from(data).toString('base64')}`,
    ...(deps.captchaMode === 'dev' ? { dev_text: text } : {}),
  };
}
