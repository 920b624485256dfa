import { type listRenterBlocks, type RouteQuery } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { Forbidden, NotFound } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { blocksBy, deleteBlock, insertBlock, type RenterBlockRow } from '../persistence/renter-repository';
import type { OrdersDeps } from './deps';

export function toBlockView(row: RenterBlockRow) {
  return { user_id: row.renter_id, created_at: row.created_at.toISOString() };
}

function ownerOf(identity: Identity): string {
  const ownerId = callerUserId(identity);
  if (!ownerId) throw new Forbidden('only a user can block renters');
  return ownerId;
}

/** The owner blocks a renter from all of their listings (ADR 0065); a repeat answers the block standing. Audited when it changes something. */
export async function blockRenter(deps: OrdersDeps, identity: Identity, userId: string) {
  const ownerId = ownerOf(identity);
  if (!isUuid(userId) || !(await deps.users.standing(userId))) throw new NotFound('user not found');
  if (userId === ownerId) throw new Forbidden('you cannot block yourself');
  return deps.db.transaction(async (tx) => {
    const { block, created } = await insertBlock(tx, { id: uuidv7(), owner_id: ownerId, renter_id: userId, created_at: new Date() });
    if (created) await recordAudit(deps.events, tx, identity, { action: 'renter.block', biz_type: 'user', biz_id: userId, detail: { owner_id: ownerId } });
    return toBlockView(block);
  });
}

/** The owner lifts a block; 404 when there is none. */
export async function unblockRenter(deps: OrdersDeps, identity: Identity, userId: string): Promise<void> {
  const ownerId = ownerOf(identity);
  if (!isUuid(userId)) throw new NotFound('no such block');
  await deps.db.transaction(async (tx) => {
    if (!(await deleteBlock(tx, ownerId, userId))) throw new NotFound('no such block');
    await recordAudit(deps.events, tx, identity, { action: 'renter.unblock', biz_type: 'user', biz_id: userId, detail: { owner_id: ownerId } });
  });
}

export async function ownBlocks(deps: OrdersDeps, identity: Identity, query: RouteQuery<typeof listRenterBlocks>) {
  const page = await blocksBy(deps.db, ownerOf(identity), query.cursor, query.limit);
  return { items: page.items.map(toBlockView), next_cursor: page.next_cursor };
}
