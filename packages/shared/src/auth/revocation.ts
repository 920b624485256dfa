import type { RedisClient } from '../redis';

/**
 * Revocation state the gateway reads on every authenticated request (one MGET), written by the
 * services that end sessions: identity (logout, refresh reuse, freeze) and admin (logout, disable).
 * Session entries live as long as the longest access token could, after which the token is dead
 * anyway; a blocked subject stays blocked until unblocked.
 */
export type SessionState = 'active' | 'revoked' | 'blocked';

export class Revocations {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private sessionKey(realm: string, sid: string) {
    return `${this.prefix}auth:revoked:${realm}:sid:${sid}`;
  }

  private subjectKey(realm: string, sub: string) {
    return `${this.prefix}auth:blocked:${realm}:${sub}`;
  }

  async revokeSession(realm: string, sid: string, ttlSeconds: number) {
    await this.redis.set(this.sessionKey(realm, sid), '1', { EX: ttlSeconds });
  }

  async blockSubject(realm: string, sub: string) {
    await this.redis.set(this.subjectKey(realm, sub), '1');
  }

  async unblockSubject(realm: string, sub: string) {
    await this.redis.del(this.subjectKey(realm, sub));
  }

  async sessionState(realm: string, sub: string, sid: string): Promise<SessionState> {
    const [revoked, blocked] = await this.redis.mGet([this.sessionKey(realm, sid), this.subjectKey(realm, sub)]);
    if (blocked) return 'blocked';
    if (revoked) return 'revoked';
    return 'active';
  }
}
