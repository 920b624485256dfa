import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { type Queryable, type Tx } from '@market/shared/db';
import { auditEvent } from '@market/shared/events';
import { planOrThrow, type Planned } from '@market/shared/planning';
import { v7 as uuidv7 } from 'uuid';
import type { Actor } from '../domain/order-state';
import type { Move, MovePlan } from '../domain/moves';
import { planMove } from '../domain/plan-move';
import { insertDispute, resolveDispute, type DisputeRow } from '../persistence/dispute-repository';
import { HANDOFF_CONTENT_SEALED, insertHandoffRecord, type HandoffRecordRow } from '../persistence/handoff-repository';
import { orderUpdate, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';

/** Who makes a move: the state table's role, and who asked (null: the system, audited as such). */
export interface Mover {
  role: Actor;
  identity: Identity | null;
}

/** A move carried out: the order moved, and what the move wrote beside it. */
export interface MoveDone {
  order: OrderRow;
  /** the dispute the move opened */
  opened: DisputeRow | null;
  /** the handoff record the move appended */
  record: HandoffRecordRow | null;
  /** the dispute the move resolved */
  resolved: DisputeRow | null;
}

/** The move planned on the order as it is now, with the settings in force (ADR 0042). */
export async function planOrderMove(deps: Pick<OrdersDeps, 'minuteMs' | 'settings'>, db: Queryable, order: OrderRow, move: Move, by: Mover): Promise<Planned<MovePlan>> {
  const identity = by.identity;
  const id = identity && (identity.kind === 'user' || identity.kind === 'admin') ? identity.sub : null;
  return planMove(order, move, { role: by.role, id }, new Date(), { settings: await deps.settings.current(db), minuteMs: deps.minuteMs });
}

/**
 * Carries a plan out on the locked order in the caller's transaction, exactly as planned: the
 * dispute it opens, the order's columns with its events and audit entries (in the name of
 * `identity`) through the outbox, the handoff record (sealed), the dispute it resolves.
 */
export async function carryOut(
  deps: Pick<OrdersDeps, 'events' | 'secrets'>,
  tx: Tx,
  order: OrderRow,
  plan: MovePlan,
  identity: Identity | null,
): Promise<MoveDone> {
  const opened = plan.openDispute ? await insertDispute(tx, { ...plan.openDispute, order_id: order.id }) : null;
  // the order's change with its events and audit entries: one round trip however many (ADR 0068, ADR 0077)
  const [moved] = await deps.events.publishAllWith<OrderRow>(tx, orderUpdate(order.id, plan.changes), [
    ...plan.events,
    ...plan.audits.map((audit) => auditEvent(identity, audit)),
  ]);
  let record: HandoffRecordRow | null = null;
  if (plan.handoffRecord) {
    const { content, ...rest } = plan.handoffRecord;
    const recordId = uuidv7();
    record = await insertHandoffRecord(tx, {
      ...rest,
      id: recordId,
      order_id: order.id,
      content_sealed: deps.secrets.seal(content, sealedAt(HANDOFF_CONTENT_SEALED, recordId)),
    });
  }
  const resolved = plan.resolveDispute ? await resolveDispute(tx, plan.resolveDispute.id, plan.resolveDispute) : null;
  return { order: moved!, opened, record, resolved };
}

/** Plans `by`'s move of the locked order, refuses it or carries it out. */
export async function moveOrder(deps: Pick<OrdersDeps, 'events' | 'secrets' | 'minuteMs' | 'settings'>, tx: Tx, order: OrderRow, move: Move, by: Mover): Promise<MoveDone> {
  return carryOut(deps, tx, order, planOrThrow(await planOrderMove(deps, tx, order, move, by)), by.identity);
}
