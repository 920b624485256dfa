import { PreparedJson, ReadCache } from '../src/http/read-cache';

/** A load that finishes when the test says so. */
function gate<T>(value: T) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let calls = 0;
  return {
    load: async () => {
      calls += 1;
      await opened;
      return value;
    },
    open: () => open(),
    calls: () => calls,
  };
}

describe('ReadCache', () => {
  it('serializes an answer once and shares it, with one load for concurrent misses', async () => {
    const cache = new ReadCache(60_000);
    const slow = gate({ items: ['a'] });
    const answers = Promise.all(Array.from({ length: 10 }, () => cache.get('k', slow.load)));
    slow.open();
    const all = await answers;
    expect(slow.calls()).toBe(1);
    expect(new Set(all).size).toBe(1);
    expect(all[0]).toBeInstanceOf(PreparedJson);
    expect(all[0]!.json).toBe('{"items":["a"]}');
    expect(all[0]!.bytes).toBe(15);
    expect(all[0]!.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('never keeps an answer whose load began before an invalidation', async () => {
    const cache = new ReadCache(60_000);
    const before = gate('before the write');
    const reading = cache.get('k', before.load);
    cache.invalidate();
    before.open();
    expect((await reading).value).toBe('before the write');
    const after = await cache.get('k', async () => 'after the write');
    expect(after.value).toBe('after the write');
  });

  it('loads again once an answer is older than its time to live', async () => {
    // the time to live runs on this test's clock: a loaded machine's pauses must not end it early
    let clock = 1_000_000;
    const cache = new ReadCache(30, undefined, () => clock);
    let loads = 0;
    const load = async () => ++loads;
    expect((await cache.get('k', load)).value).toBe(1);
    clock += 29;
    expect((await cache.get('k', load)).value).toBe(1);
    // the time to live running out is the subject
    clock += 1;
    expect((await cache.get('k', load)).value).toBe(2);
  });

  it('keeps neither failures nor answers not everyone may see', async () => {
    const cache = new ReadCache(60_000);
    await expect(cache.get('k', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect((await cache.get('k', async () => 'recovered')).value).toBe('recovered');
    let loads = 0;
    const privateAnswer = async () => {
      loads += 1;
      return null;
    };
    expect(await cache.getIfShared('p', privateAnswer)).toBeNull();
    expect(await cache.getIfShared('p', privateAnswer)).toBeNull();
    expect(loads).toBe(2);
  });
});
