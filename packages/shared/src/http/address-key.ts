import { isIPv6 } from 'node:net';

/**
 * The key a per-address limit counts a client under: an IPv4 address as it is (an IPv4-mapped
 * IPv6 one too), an IPv6 address as its /64 network (`2001:db8:0:1::/64`), `unknown` without one.
 * One subscriber line gets a whole /64 and picks any address in it at will, so counting single
 * IPv6 addresses would give every such client billions of fresh allowances.
 */
export function addressKey(address: string | null | undefined): string {
  if (!address) return 'unknown';
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [head, tail] = text.split('::');
  const before = parse(head);
  if (tail === undefined) return before;
  const after = parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}
