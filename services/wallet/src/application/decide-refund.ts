import type { AdminIdentity } from '@market/shared/auth';
import { isUuid, type Tx } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { findRefund, type RefundRow } from '../persistence/refund-repository';
import type { WalletDeps } from './deps';
import { moveRefund } from './move-refund';
import { toRefundView } from './refund-view';
import { sendRefund } from './send-refund';

async function locked<T>(deps: WalletDeps, id: string, decide: (row: RefundRow, tx: Tx) => Promise<T>) {
  if (!isUuid(id)) throw new NotFound('refund not found');
  return deps.db.transaction(async (tx) => {
    const row = await findRefund(tx, id, true);
    if (!row) throw new NotFound('refund not found');
    return decide(row, tx);
  });
}

/**
 * Finance approves a user's refund: under the refund's lock (racing approvals queue, and only the
 * first finds it `requested`) the amount moves to the refund's hold with the audit entry, then the
 * refund is sent once. A balance spent since the request refuses it and changes nothing.
 */
export async function approveRefund(deps: WalletDeps, admin: AdminIdentity, id: string) {
  const { row, send } = await locked(deps, id, (row, tx) => moveRefund(deps, tx, row, { name: 'approve' }, { kind: 'admin', id: admin.sub }, admin));
  return toRefundView(send ? await sendRefund(deps, id) : row);
}

export async function rejectRefund(deps: WalletDeps, admin: AdminIdentity, id: string, reason: string) {
  const { row } = await locked(deps, id, (found, tx) => moveRefund(deps, tx, found, { name: 'reject', reason }, { kind: 'admin', id: admin.sub }, admin));
  return toRefundView(row);
}
