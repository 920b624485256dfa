import { callerUserId } from '@market/shared/auth';
import type { openDispute as openDisputeRoute, RouteBody } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import { v7 as uuidv7 } from 'uuid';
import { assertOwnFiles } from './caller-files';
import type { OrdersDeps } from './deps';
import { toDisputeView } from './dispute-view';
import { partyMove } from './party-moves';

/**
 * Either party raises a dispute; its type follows from the state the order is in. The partial unique
 * index keeps one open per order; the evidence is shared with both parties, and dispute.opened names
 * both so notify can address them from the event alone.
 */
export async function openDispute(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof openDisputeRoute>) {
  const keys = [...new Set(body.evidence_keys ?? [])];
  const caller = callerUserId(identity);
  if (caller) await assertOwnFiles(deps, caller, keys, 'evidence_keys');
  const { opened } = await partyMove(deps, identity, id, { type: 'dispute', disputeId: uuidv7(), reason: body.reason, evidenceKeys: keys }, keys);
  return toDisputeView(opened!);
}
