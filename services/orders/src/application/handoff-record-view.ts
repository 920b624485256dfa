import type { HandoffRecord, z } from '@market/contracts';
import type { HandoffRecordRow } from '../persistence/handoff-repository';
import { fileUrl } from './order-view';

export function toHandoffRecordView(row: HandoffRecordRow, content: string): z.infer<typeof HandoffRecord> {
  return {
    id: row.id,
    order_id: row.order_id,
    author_id: row.author_id,
    author_role: row.author_role,
    content,
    attachment_urls: row.attachment_keys.map(fileUrl),
    created_at: row.created_at.toISOString(),
  };
}
