import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { findEscrow, lockOrderCharges } from '../persistence/escrow-repository';
import { toChargeView } from './charge-view';
import type { WalletDeps } from './deps';

/**
 * Whether the order was charged, answered after any charge of it still running has committed or
 * rolled back (both take the order's charge lock), with the database time of the answer: a charge
 * whose deadline is before `as_of` and that is not here now can never land.
 */
export async function readChargeStatus(deps: WalletDeps, orderId: string) {
  if (!isUuid(orderId)) throw new NotFound('order not found');
  return deps.db.transaction(async (tx) => {
    const asOf = await lockOrderCharges(tx, orderId);
    const [row] = await findEscrow(tx, orderId);
    const status = !row ? 'not_charged' : row.status === 'void' ? 'void' : 'charged';
    return {
      order_id: orderId,
      status,
      charge: status === 'charged' ? toChargeView(row!) : null,
      as_of: asOf.toISOString(),
    } as const;
  });
}
