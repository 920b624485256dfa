import { EXTENSION_OF, type ContentType } from './content-type';
import type { Scene } from './scene';

/**
 * Keys are made here only, never taken from a client: `<scene>/<yyyy>/<mm>/<uuid v7>.<ext>`.
 * A key read from a request must match this exact shape before it touches storage, which is
 * what turns `../../etc/passwd` and absolute paths into a plain "not found".
 */
const KEY_PATTERN =
  /^(listing|handoff|dispute|realname|avatar)\/\d{4}\/(0[1-9]|1[0-2])\/[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.(jpg|png|webp|pdf)$/;

export function isFileKey(value: unknown): value is string {
  return typeof value === 'string' && KEY_PATTERN.test(value);
}

export function newFileKey(scene: Scene, contentType: ContentType, id: string, now: Date): string {
  const yyyy = String(now.getUTCFullYear()).padStart(4, '0');
  const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
  const key = `${scene}/${yyyy}/${mm}/${id}.${EXTENSION_OF[contentType]}`;
  if (!isFileKey(key)) throw new Error('generated file key does not match the key pattern');
  return key;
}
