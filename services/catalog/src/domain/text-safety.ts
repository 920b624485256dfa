import type { FieldError } from '@market/shared';

const NUL = '\u0000';
const MESSAGE = 'must not contain NUL characters';

/**
 * Postgres text and jsonb cannot hold U+0000, and the schemas let it through; input carrying it is
 * refused as the client's mistake before it reaches SQL. Paths name the field, or the key holding a bad key.
 */
export function nulCharacterErrors(value: unknown, path: string[] = []): FieldError[] {
  if (typeof value === 'string') return value.includes(NUL) ? [{ path: path.join('.') || '(root)', message: MESSAGE }] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => nulCharacterErrors(v, [...path, String(i)]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      k.includes(NUL) ? [{ path: [...path, '(key)'].join('.'), message: MESSAGE }] : nulCharacterErrors(v, [...path, k]),
    );
  }
  return [];
}

/** For copies kept as jsonb (the redacted upload, its result): U+0000 becomes U+FFFD, everything else is kept. */
export function replaceNulCharacters(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll(NUL, '\uFFFD');
  if (Array.isArray(value)) return value.map(replaceNulCharacters);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll(NUL, '\uFFFD'), replaceNulCharacters(v)]));
  }
  return value;
}
