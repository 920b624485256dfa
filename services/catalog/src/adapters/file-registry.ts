import { fileMeta } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { FileRegistry } from '../application/ports';

export function fileRegistry(internal: InternalClient): FileRegistry {
  return {
    meta: (key) => internal.find(fileMeta, { query: { key } }),
  };
}
