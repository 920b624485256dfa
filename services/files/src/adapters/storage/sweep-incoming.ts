import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Removes files a crashed process left in the upload folder. A live upload is younger than
 * `olderThanMs` (it is moved or deleted as soon as its request ends); anything older is debris.
 */
export async function sweepIncoming(dir: string, olderThanMs: number, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info?.isFile() && now - info.mtimeMs > olderThanMs) {
      await rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}
