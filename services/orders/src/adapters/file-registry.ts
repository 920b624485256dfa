import { attachFiles, fileMeta } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { FileRegistry } from '../application/ports';

export function fileRegistry(internal: InternalClient): FileRegistry {
  return {
    meta: (key) => internal.find(fileMeta, { query: { key } }),
    async attachToOrder(keys, orderId, readerIds) {
      await internal.call(attachFiles, { body: { keys, biz_type: 'order', biz_id: orderId, reader_ids: readerIds } });
    },
  };
}
