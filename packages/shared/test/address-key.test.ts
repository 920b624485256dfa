import { addressKey } from '../src/http/address-key';

describe('the key a per-address limit counts under', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address as its /64, however it is written', () => {
    const key = '2001:db8:0:1::/64';
    expect(addressKey('2001:db8:0:1::1')).toBe(key);
    expect(addressKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:DB8:0:1:a:b:c:d')).toBe(key);
    expect(addressKey('2001:db8::1:0:0:0:5')).toBe(key);
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('2001:db8:0:2::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8:0:1::198.51.100.1')).toBe(key);
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 one', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('counts callers without an address together', () => {
    expect(addressKey(null)).toBe('unknown');
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('')).toBe('unknown');
  });
});
