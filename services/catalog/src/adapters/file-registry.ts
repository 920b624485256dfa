import { fileMeta, type InternalClient } from '@market/shared';
import type { FileRegistry } from '../application/ports';

export function fileRegistry(internal: InternalClient): FileRegistry {
  return {
    meta: (key) => internal.find(fileMeta, { query: { key } }),
  };
}
