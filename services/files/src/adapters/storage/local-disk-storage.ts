import { copyFile, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type Logger } from '@market/shared/logging';
import { isFileKey } from '../../domain/file-key';
import { ObjectNotFound, type Storage } from './storage';
import { volumeUnavailable } from './volume-failure';

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/**
 * Objects as files under one root folder, one sub-folder per key segment. The root is the volume:
 * any failure of the filesystem is the store unavailable (`StorageUnavailable`, 503), except an
 * object missing under a root that is there (`ObjectNotFound`, 404). The root is never created
 * here, so a volume not mounted is an outage, not an empty store.
 */
export class LocalDiskStorage implements Storage {
  private readonly root: string;

  /** `log`: where each failure of the volume is told (the service's logger; tools reading the store pass none) */
  constructor(
    root: string,
    private readonly log?: Logger,
  ) {
    this.root = path.resolve(root);
  }

  /** Only well-formed keys map to a path, and the path is checked to stay under the root. */
  pathOf(key: string): string {
    if (!isFileKey(key)) throw new ObjectNotFound(key);
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new ObjectNotFound(key);
    return full;
  }

  private async rootIsThere(): Promise<boolean> {
    return stat(this.root).then((info) => info.isDirectory(), () => false);
  }

  async put(key: string, fromPath: string): Promise<void> {
    const target = this.pathOf(key);
    try {
      // fails when the root is gone, before mkdir could make it again outside the volume
      await stat(this.root);
      await mkdir(path.dirname(target), { recursive: true });
      try {
        await rename(fromPath, target);
      } catch (err) {
        // A temporary folder on another device cannot be renamed across; copy instead.
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        await this.copyInto(fromPath, target);
      }
    } catch (err) {
      throw volumeUnavailable(this.log, 'put', err);
    }
  }

  /**
   * Copies beside the target and renames it into place, so a copy the volume cuts short (ENOSPC,
   * EIO) never appears under the key; the partial copy is removed when the volume lets it.
   */
  private async copyInto(fromPath: string, target: string): Promise<void> {
    const partial = `${target}.partial`;
    try {
      await copyFile(fromPath, partial);
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true }).catch(() => undefined);
      throw err;
    }
    await unlink(fromPath);
  }

  async open(key: string): Promise<Readable> {
    const target = this.pathOf(key);
    try {
      // Opening first makes a missing object an error here, before any header is sent.
      const handle = await open(target, 'r');
      return handle.createReadStream();
    } catch (err) {
      if (isMissing(err) && (await this.rootIsThere())) throw new ObjectNotFound(key);
      throw volumeUnavailable(this.log, 'open', err);
    }
  }

  async delete(key: string): Promise<void> {
    const target = this.pathOf(key);
    try {
      await rm(target, { force: true });
    } catch (err) {
      throw volumeUnavailable(this.log, 'delete', err);
    }
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
