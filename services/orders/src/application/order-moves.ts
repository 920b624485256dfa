import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { type Queryable, type Tx } from '@market/shared/db';
import { auditEvent, type RowsStatement } from '@market/shared/events';
import { planOrThrow, type Planned } from '@market/shared/planning';
import { v7 as uuidv7 } from 'uuid';
import type { Actor } from '../domain/order-state';
import type { Move, MovePlan } from '../domain/moves';
import { planMove } from '../domain/plan-move';
import { insertDispute, resolveDispute, type DisputeRow } from '../persistence/dispute-repository';
import { HANDOFF_CONTENT_SEALED, withHandoffRecord, type HandoffRecordRow } from '../persistence/handoff-repository';
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
  opts: { atVersion?: boolean } = {},
): Promise<MoveDone> {
  const opened = plan.openDispute ? await insertDispute(tx, { ...plan.openDispute, order_id: order.id }) : null;
  // the order's change with its handoff record, events and audit entries: one round trip however
  // many (ADR 0068, ADR 0077, ADR 0083)
  const { statement, record } = moveWrite(deps, order, plan, opts.atVersion ?? false);
  const [moved] = await deps.events.publishAllWith<OrderRow>(tx, statement, eventsOf(plan, identity));
  if (!moved) throw new OrderMovedMeanwhile();
  const resolved = plan.resolveDispute ? await resolveDispute(tx, plan.resolveDispute.id, plan.resolveDispute) : null;
  return { order: moved, opened, record, resolved };
}

/**
 * The order's change a plan makes, guarded by the version it was planned on when `atVersion`, with
 * the handoff record it appends (its content sealed to the record's id) written in the same statement.
 */
function moveWrite(
  deps: Pick<OrdersDeps, 'secrets'>,
  order: OrderRow,
  plan: MovePlan,
  atVersion: boolean,
): { statement: RowsStatement; record: HandoffRecordRow | null } {
  const change = orderUpdate(order.id, plan.changes, atVersion ? order.version : undefined);
  if (!plan.handoffRecord) return { statement: change, record: null };
  const { content, ...rest } = plan.handoffRecord;
  const id = uuidv7();
  const record = { ...rest, id, order_id: order.id, content_sealed: deps.secrets.seal(content, sealedAt(HANDOFF_CONTENT_SEALED, id)) };
  return { statement: withHandoffRecord(change, record), record };
}

function eventsOf(plan: MovePlan, identity: Identity | null) {
  return [...plan.events, ...plan.audits.map((audit) => auditEvent(identity, audit))];
}

/** The order was not at the version a move was planned on: nothing was written. */
class OrderMovedMeanwhile extends Error {}

/**
 * Carries out a plan made on the order as read without a lock, if the order is still at that
 * version (ADR 0078): a move that writes the order, and the handoff record it may append, is one
 * statement, its own transaction, with no lock taken or awaited (ADR 0083); one that opens or
 * resolves a dispute is guarded the same way in its transaction. Null when the order moved
 * meanwhile and nothing was written: the caller decides again on the order under its lock.
 */
export async function carryOutAtVersion(
  deps: Pick<OrdersDeps, 'db' | 'events' | 'secrets'>,
  order: OrderRow,
  plan: MovePlan,
  identity: Identity | null,
): Promise<MoveDone | null> {
  if (!plan.openDispute && !plan.resolveDispute) {
    const { statement, record } = moveWrite(deps, order, plan, true);
    const [moved] = await deps.events.commitAllWith<OrderRow>(deps.db, statement, eventsOf(plan, identity));
    return moved ? { order: moved, opened: null, record, resolved: null } : null;
  }
  try {
    return await deps.db.transaction((tx) => carryOut(deps, tx, order, plan, identity, { atVersion: true }));
  } catch (err) {
    if (err instanceof OrderMovedMeanwhile) return null;
    throw err;
  }
}

/** Plans `by`'s move of the locked order, refuses it or carries it out. */
export async function moveOrder(deps: Pick<OrdersDeps, 'events' | 'secrets' | 'minuteMs' | 'settings'>, tx: Tx, order: OrderRow, move: Move, by: Mover): Promise<MoveDone> {
  return carryOut(deps, tx, order, planOrThrow(await planOrderMove(deps, tx, order, move, by)), by.identity);
}
