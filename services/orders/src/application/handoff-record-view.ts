import { fileUrl, type HandoffRecord, type z } from '@market/contracts';
import { sealedAt } from '@market/shared/crypto';
import { handoffContentVisible, type HandoffReader } from '../domain/handoff-visibility';
import type { OrderState } from '../domain/order-state';
import { HANDOFF_CONTENT_SEALED, type HandoffRecordRow } from '../persistence/handoff-repository';
import type { OrdersDeps } from './deps';

/** A record with its content, or withheld: that it happened and when, without what it said or showed. */
export function toHandoffRecordView(row: HandoffRecordRow, content: string | null): z.infer<typeof HandoffRecord> {
  return {
    id: row.id,
    order_id: row.order_id,
    author_id: row.author_id,
    author_role: row.author_role,
    content,
    attachment_urls: content === null ? [] : row.attachment_keys.map(fileUrl),
    withheld: content === null,
    created_at: row.created_at.toISOString(),
  };
}

/** The records as `reader` may see them; content withheld from it is never decrypted. */
export function handoffRecordViews(
  deps: Pick<OrdersDeps, 'secrets'>,
  rows: HandoffRecordRow[],
  reader: HandoffReader,
  orderStatus: OrderState,
): Array<z.infer<typeof HandoffRecord>> {
  return rows.map((row) =>
    toHandoffRecordView(
      row,
      handoffContentVisible(reader, orderStatus, row.author_role) ? deps.secrets.open(row.content_sealed, sealedAt(HANDOFF_CONTENT_SEALED, row.id)) : null,
    ),
  );
}
