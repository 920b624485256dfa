import type { RedisClient } from '../redis';

/**
 * Revocation state the gateway reads on every authenticated request (one MGET), written by the
 * services that end sessions: identity (logout, refresh reuse, freeze) and admin (logout, disable).
 * Session entries live as long as the longest access token could, after which the token is dead
 * anyway; a blocked subject stays blocked until unblocked.
 */
export type SessionState = 'active' | 'revoked' | 'blocked';

/**
 * What the revocation channel carries, published as each revocation is written: one session
 * ended (logout, refresh-token reuse, a password change), or every session of a subject (a freeze,
 * a disable). Processes that hold sessions open (the notification stream) end them at once (ADR 0034).
 * A `recheck` notice says a subject's rights changed (an admin's roles): its sessions go on, but
 * what is held open asks again at once whether it is still allowed (ADR 0056).
 */
export type RevocationNotice =
  | { realm: string; sid: string; sub?: undefined; recheck?: undefined }
  | { realm: string; sub: string; sid?: undefined; recheck?: boolean };

/**
 * An admin token's session as the gateway sees it: `unknown` when the admin service never opened
 * it (a token signed without a login, ADR 0034), and the roles the admin holds now (ADR 0033).
 */
export interface AdminSessionState {
  state: SessionState | 'unknown';
  roles: string[];
}

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

  private adminSessionKey(sid: string) {
    return `${this.prefix}auth:session:admin:${sid}`;
  }

  private adminRolesKey(sub: string) {
    return `${this.prefix}auth:roles:admin:${sub}`;
  }

  /** Written by the admin service when it opens a session; a token of a session never opened is refused. */
  async openAdminSession(sub: string, sid: string, ttlSeconds: number) {
    await this.redis.set(this.adminSessionKey(sid), sub, { EX: ttlSeconds });
  }

  /**
   * The gateway's copy of an admin's roles; rewritten on every change, read on every admin request.
   * Announced as a `recheck`, so a stream the admin holds open ends at once if the new roles no
   * longer allow it, instead of at its next heartbeat.
   */
  async setAdminRoles(sub: string, roles: readonly string[]) {
    await this.redis.set(this.adminRolesKey(sub), JSON.stringify(roles));
    await this.announce({ realm: 'admin', sub, recheck: true });
  }

  private get channel() {
    return `${this.prefix}auth:revocations`;
  }

  private async announce(notice: RevocationNotice) {
    await this.redis.publish(this.channel, JSON.stringify(notice));
  }

  async revokeSession(realm: string, sid: string, ttlSeconds: number) {
    await this.redis.set(this.sessionKey(realm, sid), '1', { EX: ttlSeconds });
    await this.announce({ realm, sid });
  }

  async blockSubject(realm: string, sub: string) {
    await this.redis.set(this.subjectKey(realm, sub), '1');
    await this.announce({ realm, sub });
  }

  /**
   * Calls `onNotice` for every revocation from now on, on a connection of its own (a subscribed
   * Redis connection takes no other commands; node-redis subscribes again after a reconnect).
   * Answers how to stop listening. What was published while the connection was down is not
   * replayed: the stored revocation state stays the authority, read on every request.
   */
  async listen(onNotice: (notice: RevocationNotice) => void, onError: (err: Error) => void): Promise<() => Promise<void>> {
    const subscriber = this.redis.duplicate();
    subscriber.on('error', onError);
    await subscriber.connect();
    await subscriber.subscribe(this.channel, (message: string) => {
      const notice = parseNotice(message);
      if (notice) onNotice(notice);
    });
    return async () => {
      await subscriber.quit().catch(() => undefined);
    };
  }

  /**
   * Writes the blocks of `blocked` and the ends of `revokedSessions` (each for its seconds left)
   * again, and `marker` with them in one MULTI: what the service that owns them does when Redis has
   * lost them (the marker's absence tells it so). No notice goes out: the streams of those subjects
   * and sessions ended when they were first revoked.
   */
  async restore(realm: string, { blocked, revokedSessions }: { blocked: readonly string[]; revokedSessions: ReadonlyArray<{ sid: string; ttlSeconds: number }> }, marker: string) {
    const multi = this.redis.multi();
    for (const sub of blocked) multi.set(this.subjectKey(realm, sub), '1');
    for (const { sid, ttlSeconds } of revokedSessions) multi.set(this.sessionKey(realm, sid), '1', { EX: ttlSeconds });
    multi.set(marker, '1');
    await multi.exec();
  }

  async unblockSubject(realm: string, sub: string) {
    await this.redis.del(this.subjectKey(realm, sub));
  }

  /** Whether the subject is blocked (a frozen user, a disabled admin), read where no session is at hand. */
  async subjectBlocked(realm: string, sub: string): Promise<boolean> {
    return (await this.redis.get(this.subjectKey(realm, sub))) !== null;
  }

  async sessionState(realm: string, sub: string, sid: string): Promise<SessionState> {
    const [revoked, blocked] = await this.redis.mGet([this.sessionKey(realm, sid), this.subjectKey(realm, sub)]);
    if (blocked) return 'blocked';
    if (revoked) return 'revoked';
    return 'active';
  }

  /** Revocation, existence and roles of an admin session in one round trip. */
  async adminSessionState(sub: string, sid: string): Promise<AdminSessionState> {
    const [revoked, blocked, owner, roles] = await this.redis.mGet([
      this.sessionKey('admin', sid),
      this.subjectKey('admin', sub),
      this.adminSessionKey(sid),
      this.adminRolesKey(sub),
    ]);
    const parsed: unknown = roles ? JSON.parse(roles) : [];
    const held = Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === 'string') : [];
    if (blocked) return { state: 'blocked', roles: held };
    if (revoked) return { state: 'revoked', roles: held };
    // A session opened for another admin is no session of this token's subject.
    if (owner !== sub) return { state: 'unknown', roles: held };
    return { state: 'active', roles: held };
  }
}

function parseNotice(message: string): RevocationNotice | null {
  try {
    const value = JSON.parse(message) as Record<string, unknown>;
    if (typeof value.realm !== 'string') return null;
    if (typeof value.sid === 'string') return { realm: value.realm, sid: value.sid };
    if (typeof value.sub === 'string') return value.recheck === true ? { realm: value.realm, sub: value.sub, recheck: true } : { realm: value.realm, sub: value.sub };
    return null;
  } catch {
    return null;
  }
}
