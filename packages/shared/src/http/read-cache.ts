import { createHash } from 'node:crypto';

/**
 * A success body serialized once, with its entity tag: a cached answer is sent as it is, without
 * serializing, encoding, hashing or (outside production) checking it against its schema again.
 * The body is kept as its UTF-8 bytes: sending a string would encode it again on every response.
 */
export class PreparedJson<T> {
  readonly body: Buffer;
  readonly etag: string;

  constructor(readonly value: T) {
    this.body = Buffer.from(JSON.stringify(value));
    this.etag = `"${createHash('sha1').update(this.body).digest('base64url')}"`;
  }

  get bytes(): number {
    return this.body.length;
  }

  /** The JSON text (decoded from the bytes: for tests and logs, not the response path). */
  get json(): string {
    return this.body.toString('utf8');
  }
}

/** RFC 9110 weak comparison of `If-None-Match` with an entity tag: `W/` prefixes are ignored and `*` matches anything. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === etag;
  });
}

interface Entry {
  answer: Promise<PreparedJson<unknown> | null>;
  expiresAt: number;
}

/**
 * Answers of public reads, kept for at most `ttlMs` and dropped at once by `invalidate()`, which
 * the owner of the data calls whenever a write commits. A read started before an invalidation is
 * never kept after it, so no answer older than the last write this process made is served; writes
 * this process cannot see (another replica) show within `ttlMs`. Concurrent misses share one load.
 */
export class ReadCache {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  invalidate(): void {
    this.entries = new Map();
  }

  /** The answer `load` gives for `key`, serialized. */
  get<T>(key: string, load: () => Promise<T>): Promise<PreparedJson<T>> {
    return this.lookup(key, load) as Promise<PreparedJson<T>>;
  }

  /** As `get`, for answers not everyone may see: null from `load` is passed on and not kept. */
  getIfShared<T>(key: string, load: () => Promise<T | null>): Promise<PreparedJson<T> | null> {
    return this.lookup(key, load);
  }

  private lookup<T>(key: string, load: () => Promise<T | null>): Promise<PreparedJson<T> | null> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.answer as Promise<PreparedJson<T> | null>;
    const entries = this.entries;
    const answer = load().then((value) => (value === null ? null : new PreparedJson(value)));
    if (entries.size >= this.maxEntries) entries.clear();
    entries.set(key, { answer, expiresAt: now + this.ttlMs });
    const forget = () => {
      if (entries.get(key)?.answer === answer) entries.delete(key);
    };
    answer.then((prepared) => prepared ?? forget(), forget);
    return answer;
  }
}
