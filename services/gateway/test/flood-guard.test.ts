import { FloodGuard } from '../src/rate-limit';

describe('the per-process flood guard', () => {
  it('lets `points` requests per key through in a window and then says how long until it ends', () => {
    let now = 1_000_000;
    const guard = new FloodGuard(3, 60_000, () => now);
    expect([guard.consume('a'), guard.consume('a'), guard.consume('a')]).toEqual([null, null, null]);
    now += 10_000;
    expect(guard.consume('a')).toBe(50_000);
    expect(guard.consume('b')).toBeNull();
    now += 50_000;
    // a new window
    expect(guard.consume('a')).toBeNull();
  });

  it('forgets windows that ended, without a timer per key', () => {
    let now = 0;
    const guard = new FloodGuard(1, 1000, () => now);
    for (let i = 0; i < 100; i += 1) guard.consume(`k${i}`);
    now = 5000;
    guard.consume('fresh');
    expect((guard as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });
});
