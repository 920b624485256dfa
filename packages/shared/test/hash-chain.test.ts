import { createHash } from 'node:crypto';
import { canonicalJson, chainHash, findChainBreak, GENESIS_HASH, HeadsDigest, type ChainedRecord } from '../src/crypto';

function chainOf(contents: Array<Record<string, unknown>>): ChainedRecord[] {
  const records: ChainedRecord[] = [];
  let previous = GENESIS_HASH;
  contents.forEach((content, i) => {
    const hash = chainHash(previous, content as never);
    records.push({ id: `r${i}`, prevHash: previous, hash, content: content as never });
    previous = hash;
  });
  return records;
}

describe('canonicalJson', () => {
  it('is the same whatever the field order, integer type or date form', () => {
    const written = { amount: 1200, at: new Date('2026-11-28T06:00:00.123Z'), nested: { b: [1, 'x'], a: null }, gone: undefined };
    const readBack = { nested: { a: null, b: [1n, 'x'] }, at: new Date(Date.parse('2026-11-28T14:00:00.123+08:00')), amount: 1200n };
    expect(canonicalJson(written)).toBe(canonicalJson(readBack));
    expect(canonicalJson(written)).toBe('{"amount":1200,"at":"2026-11-28T06:00:00.123Z","nested":{"a":null,"b":[1,"x"]}}');
  });

  it('tells a string of digits from an integer, and refuses what no column stores', () => {
    expect(canonicalJson({ amount: '1200' })).not.toBe(canonicalJson({ amount: 1200 }));
    expect(() => canonicalJson({ amount: Number.NaN })).toThrow(/non-finite/);
  });
});

describe('hash chains', () => {
  const contents = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }];

  it('links each record to the previous hash with SHA-256', () => {
    const [first] = chainOf(contents);
    expect(first!.hash).toBe(createHash('sha256').update(`${GENESIS_HASH}\n{"n":1}`).digest('hex'));
    expect(findChainBreak('c', chainOf(contents), chainOf(contents).at(-1)!.hash)).toBeNull();
    expect(findChainBreak('c', [], GENESIS_HASH)).toBeNull();
  });

  it('names an altered record', () => {
    const records = chainOf(contents);
    const head = records.at(-1)!.hash;
    records[1] = { ...records[1]!, content: { n: 20 } };
    expect(findChainBreak('c', records, head)).toEqual({ chain: 'c', entry: 'r1', problem: 'altered' });
  });

  it('names the record after a removed one, and an inserted one', () => {
    const head = chainOf(contents).at(-1)!.hash;
    const removed = chainOf(contents).filter((r) => r.id !== 'r1');
    expect(findChainBreak('c', removed, head)).toEqual({ chain: 'c', entry: 'r2', problem: 'removed_or_inserted' });
    const records = chainOf(contents);
    const forged: ChainedRecord = { id: 'forged', prevHash: records[1]!.hash, hash: chainHash(records[1]!.hash, { n: 99 }), content: { n: 99 } };
    records.splice(2, 0, forged);
    expect(findChainBreak('c', records, head)).toEqual({ chain: 'c', entry: 'r2', problem: 'removed_or_inserted' });
  });

  it('sees the newest records removed through the head, and names a record appended past it', () => {
    const records = chainOf(contents);
    const head = records.at(-1)!.hash;
    expect(findChainBreak('c', records.slice(0, 3), head)).toEqual({ chain: 'c', entry: null, problem: 'head_mismatch' });
    const appended: ChainedRecord = { id: 'appended', prevHash: head, hash: chainHash(head, { n: 5 }), content: { n: 5 } };
    expect(findChainBreak('c', [...records, appended], head)).toEqual({ chain: 'c', entry: 'appended', problem: 'removed_or_inserted' });
    expect(findChainBreak('c', records.slice(0, 1), GENESIS_HASH)).toEqual({ chain: 'c', entry: 'r0', problem: 'removed_or_inserted' });
    expect(findChainBreak('c', records, null)).toEqual({ chain: 'c', entry: null, problem: 'head_mismatch' });
  });
});

describe('HeadsDigest', () => {
  const digestOf = (heads: Array<[string, string]>) => {
    const digest = new HeadsDigest();
    for (const [chain, head] of heads) digest.add(chain, head);
    return digest.value;
  };
  const a = chainHash(GENESIS_HASH, { n: 1 });
  const b = chainHash(GENESIS_HASH, { n: 2 });

  it('changes with any head, and with which chain holds it', () => {
    const base = digestOf([['orders', a], ['wallet', b]]);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOf([['orders', a], ['wallet', b]])).toBe(base);
    expect(digestOf([['orders', a], ['wallet', a]])).not.toBe(base);
    expect(digestOf([['orders', b], ['wallet', a]])).not.toBe(base);
    expect(digestOf([['orders', a]])).not.toBe(base);
  });
});
