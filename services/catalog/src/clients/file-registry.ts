import { fileMeta, type InternalClient, type InternalResult } from '@market/shared';

export type FileMeta = InternalResult<typeof fileMeta>;

/** What the files service knows of a stored object; null when there is no such key. */
export function fileRegistry(internal: InternalClient) {
  return {
    meta: (key: string): Promise<FileMeta | null> => internal.find(fileMeta, { query: { key } }),
  };
}

export type FileRegistry = ReturnType<typeof fileRegistry>;
