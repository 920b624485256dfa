import { fileMeta, Problem, type InternalClient, type InternalResult } from '@market/shared';

export type FileMeta = InternalResult<typeof fileMeta>;

/** What the files service knows of a stored object; null when there is no such key. */
export function fileRegistry(internal: InternalClient) {
  return {
    async meta(key: string): Promise<FileMeta | null> {
      try {
        return await internal.call(fileMeta, { query: { key } });
      } catch (err) {
        if (err instanceof Problem && err.status === 404) return null;
        throw err;
      }
    },
  };
}

export type FileRegistry = ReturnType<typeof fileRegistry>;
