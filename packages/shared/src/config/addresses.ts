/**
 * A service's addresses: `<NAME>_URL` may list several replicas, comma-separated
 * (`http://orders-1:8083,http://orders-2:8083`); callers take them in turn (ADR 0038).
 */
export function addressesOf(urls: string): string[] {
  return urls
    .split(',')
    .map((url) => url.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** How long a replica that refused a connection is passed over, unless configured otherwise (ADR 0046). */
export const DEFAULT_REPLICA_EJECT_MS = 5000;

const NONE_TRIED: ReadonlySet<number> = new Set();

/**
 * A service's replicas (addresses, or a proxy per address), taken in turn, passing over the ones
 * set aside: a replica that refused a connection (down or restarting) is set aside for `ejectMs`,
 * then comes back into the turn, where the next request it gets is its probe; a refusal sets it
 * aside again. When every replica left to try is set aside, they are tried anyway: a caller is
 * never told "unavailable" without a try (ADR 0046, a passive health check as nginx's `max_fails`
 * and `fail_timeout`).
 */
export class Replicas<T> {
  private next = 0;
  /** by index, when a set-aside replica comes back (0: not set aside) */
  private readonly asideUntil: number[];

  constructor(
    readonly items: readonly T[],
    private readonly ejectMs = DEFAULT_REPLICA_EJECT_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (items.length === 0) throw new Error('nothing to balance over');
    this.asideUntil = items.map(() => 0);
  }

  /**
   * The index of the replica to try next, none of `tried` (the ones this request already tried):
   * the next in turn not set aside, else the next in turn; undefined once every one was tried.
   */
  pick(tried: ReadonlySet<number> = NONE_TRIED): number | undefined {
    const count = this.items.length;
    let fallback: number | undefined;
    let now: number | undefined;
    for (let step = 0; step < count; step++) {
      const index = (this.next + step) % count;
      if (tried.has(index)) continue;
      const until = this.asideUntil[index]!;
      if (until !== 0) {
        now ??= this.now();
        if (until > now) {
          fallback ??= index;
          continue;
        }
        this.asideUntil[index] = 0;
      }
      return this.taken(index);
    }
    return fallback === undefined ? undefined : this.taken(fallback);
  }

  /** The replica at `index` refused a connection: later requests pass over it for a while. */
  refused(index: number): void {
    this.asideUntil[index] = this.now() + this.ejectMs;
  }

  /** How many replicas are set aside right now. */
  setAside(): number {
    const now = this.now();
    return this.asideUntil.filter((until) => until > now).length;
  }

  private taken(index: number): number {
    this.next = (index + 1) % this.items.length;
    return index;
  }
}
