import { callerUserId } from '@market/shared/auth';
import type { RouteBody, submitHandoff as submitHandoffRoute } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import { assertOwnFiles, shareWithParties } from './caller-files';
import type { OrdersDeps } from './deps';
import { handOver } from './hand-over';
import { partyOrder } from './order-access';
import { assertMove } from './order-moves';
import { toHandoffRecordView } from './handoff-record-view';
import { currentSettings } from './settings';

/** The owner's first note hands the account over; later notes from either party are appended. */
export async function submitHandoff(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof submitHandoffRoute>) {
  const keys = body.attachment_keys ?? [];
  const userId = callerUserId(identity);
  if (userId) await assertOwnFiles(deps, userId, keys, 'attachment_keys');
  return deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    assertMove(order, order.status === 'pending_handoff' ? 'handoff' : 'note', role);
    await shareWithParties(deps, order, keys);
    const { record } = await handOver(deps, tx, order, {
      actor: role,
      identity,
      settings: await currentSettings(tx),
      authorId: role === 'renter' ? order.renter_id : order.owner_id,
      authorRole: role === 'renter' ? 'renter' : 'owner',
      content: body.content,
      attachmentKeys: keys,
    });
    return toHandoffRecordView(record, body.content);
  });
}
