import { readFile } from '@market/contracts';

export const DEFAULT_SCREENSHOT_URL = '/api/listings/default-upload-screenshot';

/** Scenes the files service serves to anyone; a listing must not point at a private file. */
export const PUBLIC_FILE_SCENES: ReadonlySet<string> = new Set(['listing', 'avatar']);

export type ScreenshotAddress = { kind: 'default' } | { kind: 'file'; key: string } | { kind: 'foreign' };

/**
 * Only addresses of this system are accepted: the default screenshot, or a relative
 * `/api/files/object?key=<key>` with nothing else in it. Anything absolute, with a fragment or
 * further parameters could point a buyer's browser elsewhere.
 */
export function classifyScreenshotUrl(url: string): ScreenshotAddress {
  if (url === DEFAULT_SCREENSHOT_URL) return { kind: 'default' };
  if (!url.startsWith(`${readFile.path}?`) || url.includes('#')) return { kind: 'foreign' };
  const params = new URLSearchParams(url.slice(readFile.path.length + 1));
  const keys = [...params.keys()];
  const key = params.get('key');
  if (keys.length !== 1 || keys[0] !== 'key' || !key) return { kind: 'foreign' };
  return { kind: 'file', key };
}
