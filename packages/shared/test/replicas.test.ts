import { Replicas } from '../src/config/addresses';

/** A clock the test moves by hand. */
function clock() {
  let now = 1_000;
  return { now: () => now, pass: (ms: number) => (now += ms) };
}

/** Replicas of `items`, set aside for `ejectMs` after a refusal, on a clock the test moves by hand. */
function onClock(items: string[], ejectMs: number) {
  const time = clock();
  return { time, replicas: new Replicas(items, ejectMs, time.now) };
}

const picks = (replicas: Replicas<string>, n: number) => Array.from({ length: n }, () => replicas.items[replicas.pick()!]);

describe('Replicas', () => {
  it('takes the replicas in turn', () => {
    const replicas = new Replicas(['a', 'b', 'c'], 5000);
    expect(picks(replicas, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('passes over a replica that refused, for the eject time, then takes it back', () => {
    const { time, replicas } = onClock(['a', 'b', 'c'], 5000);
    expect(picks(replicas, 2)).toEqual(['a', 'b']);
    replicas.refused(1);
    expect(replicas.setAside()).toBe(1);
    expect(picks(replicas, 4)).toEqual(['c', 'a', 'c', 'a']);
    time.pass(4999);
    expect(picks(replicas, 2)).toEqual(['c', 'a']);
    time.pass(1);
    expect(replicas.setAside()).toBe(0);
    expect(picks(replicas, 3)).toEqual(['b', 'c', 'a']);
  });

  it('sets a replica aside again when its probe is refused', () => {
    const { time, replicas } = onClock(['a', 'b'], 1000);
    replicas.refused(0);
    time.pass(1000);
    expect(replicas.pick()).toBe(0);
    replicas.refused(0);
    expect(picks(replicas, 3)).toEqual(['b', 'b', 'b']);
  });

  it('within one request, never picks a replica already tried, and answers none once all were', () => {
    const replicas = new Replicas(['a', 'b', 'c'], 5000);
    const first = replicas.pick()!;
    const tried = new Set([first]);
    const second = replicas.pick(tried)!;
    tried.add(second);
    const third = replicas.pick(tried)!;
    tried.add(third);
    expect([first, second, third].sort()).toEqual([0, 1, 2]);
    expect(replicas.pick(tried)).toBeUndefined();
  });

  it('tries set-aside replicas anyway when every one left is set aside, in turn', () => {
    const { time, replicas } = onClock(['a', 'b'], 5000);
    replicas.refused(0);
    replicas.refused(1);
    expect(replicas.setAside()).toBe(2);
    expect(picks(replicas, 3)).toEqual(['a', 'b', 'a']);
    // and a request that was refused by the only one not set aside still gets the set-aside one
    const other = new Replicas(['a', 'b'], 5000, time.now);
    other.refused(1);
    const first = other.pick()!;
    expect(first).toBe(0);
    expect(other.pick(new Set([first]))).toBe(1);
  });

  it('never sets anything aside with an eject time of 0', () => {
    const { replicas } = onClock(['a', 'b'], 0);
    replicas.refused(0);
    expect(replicas.setAside()).toBe(0);
    expect(picks(replicas, 2)).toEqual(['a', 'b']);
  });

  it('refuses an empty list', () => {
    expect(() => new Replicas([])).toThrow('nothing to balance over');
  });
});
