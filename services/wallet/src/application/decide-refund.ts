import type { AdminIdentity } from '@market/shared/auth';
import type { WalletDeps } from './deps';
import { REFUND_MOVES } from './move-refund';
import { toRefundView } from './refund-view';
import { sendRefund } from './send-refund';

/**
 * Finance approves a user's refund: under the refund's lock (racing approvals queue, and only the
 * first finds it `requested`) the amount moves to the refund's hold with the audit entry, then the
 * refund is sent once. A balance spent since the request refuses it and changes nothing.
 */
export async function approveRefund(deps: WalletDeps, admin: AdminIdentity, id: string) {
  const { row, send } = await REFUND_MOVES.moveLocked(deps, id, { name: 'approve' }, { kind: 'admin', id: admin.sub }, admin);
  return toRefundView(send ? await sendRefund(deps, id) : row);
}

export async function rejectRefund(deps: WalletDeps, admin: AdminIdentity, id: string, reason: string) {
  const { row } = await REFUND_MOVES.moveLocked(deps, id, { name: 'reject', reason }, { kind: 'admin', id: admin.sub }, admin);
  return toRefundView(row);
}
