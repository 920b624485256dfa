import { Problem, z, type InternalClient } from '@market/shared';
import { parseUpstream } from './upstream';

const FileMeta = z.object({ key: z.string(), scene: z.string() });
export type FileMeta = z.infer<typeof FileMeta>;

/** What the files service knows of a stored object; null when there is no such key. */
export function fileRegistry(files: InternalClient) {
  return {
    async meta(key: string): Promise<FileMeta | null> {
      try {
        return parseUpstream(FileMeta, await files.get(`/internal/files/meta?key=${encodeURIComponent(key)}`));
      } catch (err) {
        if (err instanceof Problem && err.status === 404) return null;
        throw err;
      }
    },
  };
}

export type FileRegistry = ReturnType<typeof fileRegistry>;
