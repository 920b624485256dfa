import { InvalidInput, type FieldError } from '@market/shared/errors';
import type { OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';

/**
 * Keys must name files the caller uploaded: a key someone else uploaded would otherwise become
 * readable by the caller through the order. Unknown and foreign keys get the same answer.
 */
export async function assertOwnFiles(deps: Pick<OrdersDeps, 'files'>, userId: string, keys: string[], field: string) {
  const metas = await Promise.all(keys.map((key) => deps.files.meta(key)));
  const errors: FieldError[] = metas.flatMap((meta, i) =>
    meta && meta.owner_id === userId ? [] : [{ path: `${field}.${i}`, message: 'no file you uploaded has this key' }],
  );
  if (errors.length > 0) throw new InvalidInput(errors);
}

/** Lets both parties read the files (the files service grants it; repeating changes nothing). */
export async function shareWithParties(deps: Pick<OrdersDeps, 'files'>, order: OrderRow, keys: string[]) {
  if (keys.length === 0) return;
  await deps.files.attachToOrder([...new Set(keys)], order.id, [order.renter_id, order.owner_id]);
}
