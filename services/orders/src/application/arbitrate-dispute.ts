import { type arbitrateDispute as arbitrateRoute, type RouteBody } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { ARBITRATION_TRIGGER } from '../domain/arbitration';
import { findDispute } from '../persistence/dispute-repository';
import { findOrder } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { toDisputeView } from './dispute-view';
import { moveOrder } from './order-moves';

/**
 * An admin decides an open dispute: the order completes, closes or turns abnormal with the money the
 * decision says, and the dispute is resolved, in one transaction. The order is locked first (as every
 * move locks it), then the dispute: of two admins arbitrating at once the second waits, then finds the
 * dispute resolved and is refused with 409.
 */
export async function arbitrateDispute(deps: OrdersDeps, identity: AdminIdentity, id: string, body: RouteBody<typeof arbitrateRoute>) {
  if (!isUuid(id)) throw new NotFound('dispute not found');
  const asked = await findDispute(deps.db, id);
  if (!asked) throw new NotFound('dispute not found');
  // the order as this request read it, before the lock: a change committed meanwhile makes the decision stale
  const seen = (await findOrder(deps.db, asked.order_id))!;
  return deps.db.transaction(async (tx) => {
    const order = (await findOrder(tx, asked.order_id, { lock: true }))!;
    const dispute = (await findDispute(tx, id, { lock: true }))!;
    const move = { type: ARBITRATION_TRIGGER[body.result], dispute, note: body.note, breakdown: body.breakdown, seen: { status: seen.status, version: seen.version } };
    const { resolved } = await moveOrder(deps, tx, order, move, { role: 'admin', identity });
    return toDisputeView(resolved!);
  });
}
