import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (account credentials, id numbers). The key id is stored beside
 * the ciphertext (`v1.<kid>.<iv>.<tag>.<data>`), so keys can be rotated: new writes use the
 * current key, old rows still name the key that opens them.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();

  /** `keyring`: `kid:base64key[,kid:base64key...]`; the first is the current key. */
  constructor(keyring: string) {
    for (const entry of keyring.split(',')) {
      const [kid, material] = entry.split(':');
      if (!kid || !material) throw new Error('keyring entries must be kid:base64key');
      const key = Buffer.from(material, 'base64');
      if (key.length !== 32) throw new Error(`key ${kid} must be 32 bytes (base64-encoded)`);
      this.keys.set(kid, key);
    }
    if (this.keys.size === 0) throw new Error('keyring is empty');
  }

  private get currentKid(): string {
    return this.keys.keys().next().value as string;
  }

  seal(plaintext: string): string {
    const kid = this.currentKid;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(kid)!, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v1', kid, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, kid, iv, tag, data] = sealed.split('.');
    const key = kid ? this.keys.get(kid) : undefined;
    if (version !== 'v1' || !key || !iv || !tag || data === undefined) throw new Error('cannot open sealed value');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** A development keyring derived from a fixed phrase; production must configure real keys. */
export const DEV_KEYRING = `dev:${createHash('sha256').update('market-dev-keyring').digest('base64')}`;

/** Keeps the first `keepStart` and last `keepEnd` characters: `138****8000`. */
export function mask(value: string, keepStart: number, keepEnd: number, fill = '*'): string {
  const chars = [...value];
  if (chars.length <= keepStart + keepEnd) return fill.repeat(chars.length);
  return chars.slice(0, keepStart).join('') + fill.repeat(chars.length - keepStart - keepEnd) + chars.slice(chars.length - keepEnd).join('');
}
