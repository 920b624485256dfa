import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Where a sealed value is stored: it opens only there. Bound in as GCM associated data, so a
 * ciphertext copied into another row, column or table (by someone who can write the database but
 * holds no key) does not open.
 */
export interface SealedPlace {
  table: string;
  column: string;
  /** the row's id (its primary key as text) */
  id: string;
}

/** A column of sealed values and the column holding its rows' ids: one definition for sealing and for re-sealing. */
export interface SealedColumn {
  table: string;
  column: string;
  idColumn: string;
}

export function sealedAt(column: SealedColumn, id: string): SealedPlace {
  return { table: column.table, column: column.column, id };
}

const CURRENT = 'v2';
/** Sealed without a place; kept readable only so `resealLegacy` can bind what is stored. */
const LEGACY = 'v1';
const IV_BYTES = 12;
/** GCM accepts tags down to 4 bytes unless told otherwise; a short tag is forged with little effort. */
const TAG_BYTES = 16;

function associatedData(place: SealedPlace): Buffer {
  if (!place.table || !place.column || !place.id) throw new Error('a sealed value needs its table, column and row id');
  return Buffer.from(JSON.stringify([CURRENT, place.table, place.column, place.id]), 'utf8');
}

/**
 * AES-256-GCM for secrets at rest (account credentials, id numbers). The envelope is
 * `v2.<kid>.<iv>.<tag>.<data>`: the version tells bound values from the `v1` ones sealed before
 * places were bound; the key id lets keys rotate (new writes use the current key, old rows still
 * name the key that opens them).
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

  seal(plaintext: string, place: SealedPlace): string {
    const kid = this.currentKid;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(kid)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(place));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [CURRENT, kid, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.');
  }

  /** Opens a value sealed for `place`; anything else (another place, the old format, a short tag) throws. */
  open(sealed: string, place: SealedPlace): string {
    return this.decrypt(sealed, CURRENT, associatedData(place));
  }

  /** Whether `sealed` is in the old, unbound format that `resealLegacy` converts. */
  isLegacy(sealed: string): boolean {
    return sealed.startsWith(`${LEGACY}.`);
  }

  /** Opens an old-format value and seals it again bound to the place it is stored at. */
  resealLegacy(sealed: string, place: SealedPlace): string {
    return this.seal(this.decrypt(sealed, LEGACY, undefined), place);
  }

  private decrypt(sealed: string, version: string, aad: Buffer | undefined): string {
    const parts = sealed.split('.');
    const [found, kid, ivText, tagText, dataText] = parts;
    const key = kid ? this.keys.get(kid) : undefined;
    const iv = Buffer.from(ivText ?? '', 'base64url');
    const tag = Buffer.from(tagText ?? '', 'base64url');
    if (parts.length !== 5 || found !== version || !key || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new Error('cannot open sealed value');
    }
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    if (aad) decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(Buffer.from(dataText!, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('cannot open sealed value');
    }
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
