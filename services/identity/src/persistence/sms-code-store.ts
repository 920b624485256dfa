import { createHmac } from 'node:crypto';
import type { RedisClient } from '@market/shared/redis';
import { SMS_CODE_TTL_SECONDS, SMS_MAX_WRONG_TRIES, SMS_RESEND_AFTER_SECONDS } from '../domain/sms-policy';

export type CodeVerdict = 'ok' | 'invalid';

/**
 * Compares and counts in one step inside Redis: a right code is deleted as it is accepted (one use,
 * even for two logins at once); a wrong one counts a try, and the last allowed try burns the code.
 */
const CONSUME_CODE = `
local stored = redis.call('HGET', KEYS[1], 'hash')
if not stored then return 'invalid' end
if stored == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 'ok'
end
if redis.call('HINCRBY', KEYS[1], 'wrong', 1) >= tonumber(ARGV[2]) then redis.call('DEL', KEYS[1]) end
return 'invalid'`;

/** Login codes live hashed (HMAC keyed by a server secret) in Redis, one live code per phone. */
export class SmsCodeStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: (name: string) => string,
    private readonly secret: string,
  ) {}

  private hash(phone: string, code: string) {
    return createHmac('sha256', this.secret).update(`${phone}:${code}`).digest('base64url');
  }

  /** Takes the phone's resend slot; answers how many seconds are left when it is still taken. */
  async holdResendSlot(phone: string): Promise<number> {
    const slot = this.key(`identity:sms:resend:${phone}`);
    const taken = await this.redis.set(slot, '1', { condition: 'NX', expiration: { type: 'EX', value: SMS_RESEND_AFTER_SECONDS } });
    if (taken) return 0;
    return Math.max(1, await this.redis.ttl(slot));
  }

  /** Frees the resend slot of a phone no code reached. */
  async releaseResendSlot(phone: string) {
    await this.redis.del(this.key(`identity:sms:resend:${phone}`));
  }

  /** A new code replaces the previous one and its wrong-try count. */
  async save(phone: string, code: string) {
    const key = this.key(`identity:sms:code:${phone}`);
    await this.redis
      .multi()
      .del(key)
      .hSet(key, { hash: this.hash(phone, code), wrong: '0' })
      .expire(key, SMS_CODE_TTL_SECONDS)
      .exec();
  }

  async consume(phone: string, code: string): Promise<CodeVerdict> {
    const verdict = await this.redis.eval(CONSUME_CODE, {
      keys: [this.key(`identity:sms:code:${phone}`)],
      arguments: [this.hash(phone, code), String(SMS_MAX_WRONG_TRIES)],
    });
    return verdict === 'ok' ? 'ok' : 'invalid';
  }
}
