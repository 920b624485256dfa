import { copyFile, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { isFileKey } from '../../domain/file-key';
import { ObjectNotFound, type Storage } from './storage';

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/** Objects as files under one root folder, one sub-folder per key segment. */
export class LocalDiskStorage implements Storage {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Only well-formed keys map to a path, and the path is checked to stay under the root. */
  pathOf(key: string): string {
    if (!isFileKey(key)) throw new ObjectNotFound(key);
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new ObjectNotFound(key);
    return full;
  }

  async put(key: string, fromPath: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await rename(fromPath, target);
    } catch (err) {
      // A temporary folder on another device cannot be renamed across; copy instead.
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(fromPath, target);
      await unlink(fromPath);
    }
  }

  async open(key: string): Promise<Readable> {
    const target = this.pathOf(key);
    try {
      // Opening first makes a missing object an error here, before any header is sent.
      const handle = await open(target, 'r');
      return handle.createReadStream();
    } catch (err) {
      if (isMissing(err)) throw new ObjectNotFound(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /**
   * Every stored key, folder by folder in name order (so a listing is the same from run to run).
   * Only paths that are generated keys count: the upload folder and anything else put there are not objects.
   */
  async *keys(): AsyncGenerator<string> {
    async function* walk(dir: string, prefix: string): AsyncGenerator<string> {
      const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
        if (isMissing(err)) return [];
        throw err;
      });
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const key = `${prefix}${entry.name}`;
        if (entry.isDirectory() && !entry.name.startsWith('.')) yield* walk(path.join(dir, entry.name), `${key}/`);
        else if (entry.isFile() && isFileKey(key)) yield key;
      }
    }
    yield* walk(this.root, '');
  }
}
