import type { RedisClient } from '@market/shared/redis';

/** Captcha answers (as digests) in Redis; reading one deletes it, which is what makes a captcha single use. */
export class CaptchaStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: (name: string) => string,
  ) {}

  async put(captchaId: string, digest: string, ttlSeconds: number) {
    await this.redis.set(this.key(`admin:captcha:${captchaId}`), digest, { EX: ttlSeconds });
  }

  async take(captchaId: string): Promise<string | null> {
    const value = await this.redis.getDel(this.key(`admin:captcha:${captchaId}`));
    return typeof value === 'string' ? value : null;
  }
}
