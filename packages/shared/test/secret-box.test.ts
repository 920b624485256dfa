import { randomBytes } from 'node:crypto';
import { DEV_KEYRING, SecretBox, type SealedPlace } from '../src/crypto';
import { sealedInLegacyFormat } from '../src/testing';

const KEY = randomBytes(32);
const KEYRING = `k1:${KEY.toString('base64')}`;
const place: SealedPlace = { table: 'listing_credentials', column: 'sealed', id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b' };

const sealedTheOldWay = (plaintext: string) => sealedInLegacyFormat(plaintext, KEYRING);

function withTag(sealed: string, cut: (tag: Buffer) => Buffer): string {
  const parts = sealed.split('.');
  parts[3] = cut(Buffer.from(parts[3]!, 'base64url')).toString('base64url');
  return parts.join('.');
}

describe('SecretBox', () => {
  const box = new SecretBox(KEYRING);

  it('opens a value at the place it was sealed for, in a versioned envelope naming its key', () => {
    const sealed = box.seal('password-123', place);
    expect(sealed).toMatch(/^v2\.k1\./);
    expect(sealed).not.toContain('password');
    expect(box.open(sealed, { ...place })).toBe('password-123');
  });

  it('does not open a ciphertext copied to another row, column or table', () => {
    const sealed = box.seal('password-123', place);
    for (const elsewhere of [
      { ...place, id: '0193a1b2-7c3d-7e4f-8a9b-000000000000' },
      { ...place, column: 'raw_sealed' },
      { ...place, table: 'open_uploads' },
    ]) {
      expect(() => box.open(sealed, elsewhere)).toThrow('cannot open sealed value');
    }
  });

  it('refuses a truncated authentication tag, in either format', () => {
    const sealed = box.seal('password-123', place);
    expect(() => box.open(withTag(sealed, (tag) => tag.subarray(0, 4)), place)).toThrow('cannot open sealed value');
    expect(() => box.open(withTag(sealed, (tag) => tag.subarray(0, 15)), place)).toThrow('cannot open sealed value');
    const old = sealedTheOldWay('password-123');
    expect(() => box.resealLegacy(withTag(old, (tag) => tag.subarray(0, 4)), place)).toThrow('cannot open sealed value');
  });

  it('refuses a ciphertext whose data was altered', () => {
    const parts = box.seal('password-123', place).split('.');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0]! ^= 1;
    parts[4] = data.toString('base64url');
    expect(() => box.open(parts.join('.'), place)).toThrow('cannot open sealed value');
  });

  it('opens an old-format value only to bind it to its place, after which it opens there and nowhere else', () => {
    const old = sealedTheOldWay('id-11010519491231002X');
    expect(box.isLegacy(old)).toBe(true);
    expect(() => box.open(old, place)).toThrow('cannot open sealed value');
    const bound = box.resealLegacy(old, place);
    expect(box.isLegacy(bound)).toBe(false);
    expect(box.open(bound, place)).toBe('id-11010519491231002X');
    expect(() => box.open(bound, { ...place, id: 'another-row' })).toThrow('cannot open sealed value');
  });

  it('still opens values sealed under a rotated-out key while sealing with the current one', () => {
    const before = new SecretBox(DEV_KEYRING);
    const sealed = before.seal('secret', place);
    const rotated = new SecretBox(`${KEYRING},${DEV_KEYRING}`);
    expect(rotated.open(sealed, place)).toBe('secret');
    expect(rotated.seal('secret', place)).toMatch(/^v2\.k1\./);
    expect(() => box.open(sealed, place)).toThrow('cannot open sealed value');
  });

  it('refuses to seal without a complete place', () => {
    expect(() => box.seal('secret', { ...place, id: '' })).toThrow();
  });
});
