import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { type Tx } from '@market/shared/db';
import { v7 as uuidv7 } from 'uuid';
import type { Actor } from '../domain/order-state';
import type { OrderSettings } from '../domain/settings';
import { HANDOFF_CONTENT_SEALED, insertHandoffRecord, type HandoffRecordRow } from '../persistence/handoff-repository';
import type { OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { moveOrder } from './order-moves';

export interface HandOverInput {
  actor: Actor;
  identity: Identity | null;
  settings: OrderSettings;
  authorId: string;
  authorRole: 'owner' | 'renter';
  content: string;
  attachmentKeys: string[];
}

/**
 * Writes a handoff record (sealed) and makes the move it implies: the first one in pending_handoff
 * is the handoff, any later one a note. The stored-credentials handoff is made by `system` and
 * written in the owner's name (the contract's author roles are the two parties), marked `by_system`.
 */
export async function handOver(
  deps: Pick<OrdersDeps, 'events' | 'minuteMs' | 'secrets'>,
  tx: Tx,
  order: OrderRow,
  input: HandOverInput,
): Promise<{ order: OrderRow; record: HandoffRecordRow }> {
  const moved = await moveOrder(deps, tx, order, {
    trigger: order.status === 'pending_handoff' ? 'handoff' : 'note',
    actor: input.actor,
    identity: input.identity,
    settings: input.settings,
  });
  const recordId = uuidv7();
  const record = await insertHandoffRecord(tx, {
    id: recordId,
    order_id: order.id,
    author_id: input.authorId,
    author_role: input.authorRole,
    content_sealed: deps.secrets.seal(input.content, sealedAt(HANDOFF_CONTENT_SEALED, recordId)),
    attachment_keys: input.attachmentKeys,
    by_system: input.actor === 'system',
    created_at: new Date(),
  });
  return { order: moved, record };
}
