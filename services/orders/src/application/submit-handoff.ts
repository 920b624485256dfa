import { callerUserId } from '@market/shared/auth';
import type { RouteBody, submitHandoff as submitHandoffRoute } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import { assertOwnFiles } from './caller-files';
import type { OrdersDeps } from './deps';
import { toHandoffRecordView } from './handoff-record-view';
import { partyMove } from './party-moves';

/** The owner's first note hands the account over; later notes from either party are appended. */
export async function submitHandoff(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof submitHandoffRoute>) {
  const keys = body.attachment_keys ?? [];
  const userId = callerUserId(identity);
  if (userId) await assertOwnFiles(deps, userId, keys, 'attachment_keys');
  const { record } = await partyMove(deps, identity, id, { type: 'hand_over', content: body.content, attachmentKeys: keys }, keys);
  return toHandoffRecordView(record!, body.content);
}
