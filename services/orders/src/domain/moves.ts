import type { EventData, EventType } from '@market/contracts';
import type { ArbitrationResult } from './arbitration';
import type { OrderChanges } from './order';
import { ORDER_TRIGGERS, type Actor, type OrderState, type OrderTrigger } from './order-state';
import type { OrderSettings } from './settings';
import type { Proposal } from './settlement';

/* The moves of an order as asked (Move) and as planned (MovePlan): planMove (plan-move.ts) turns one into the other (ADR 0042). */

/** Who moves the order: a role of the state table, and the user or admin id (null for the system). */
export interface MoveActor {
  role: Actor;
  id: string | null;
}

/** A dispute as a move needs it: the order's open one, or the one an admin decides. */
export interface DisputeRef {
  id: string;
  status: 'open' | 'resolved';
  result: ArbitrationResult | null;
}

/** The order as an admin's request read it before taking the lock: its state and how often it had changed. */
export interface SeenOrder {
  status: OrderState;
  version: number;
}

/** An admin decides on the order as the request read it, with a split of the escrow or without. */
type AdminDecision = { seen: SeenOrder; breakdown?: Proposal };
export type Arbitration = { type: 'arbitrate_complete' | 'arbitrate_close' | 'arbitrate_mark_abnormal'; dispute: DisputeRef; note: string } & AdminDecision;
export type AdminEnd = { type: 'admin_close' | 'admin_mark_abnormal'; openDispute: DisputeRef | null; reason: string; expectedStatus?: OrderState } & AdminDecision;

/**
 * What someone asks of an order, with what the move needs to know. A handoff record is the `handoff`
 * in pending_handoff and a `note` later; a deadline is `overdue` the first time a disputed or
 * abnormal order passes it and `timeout` otherwise: planMove picks the row.
 */
export type Move =
  | { type: 'pay'; paidAt: Date }
  | { type: 'cancel'; reason: string | null }
  | { type: 'hand_over'; content: string; attachmentKeys: string[] }
  | { type: 'confirm_receive' }
  | { type: 'checkout'; consumption?: number; reason: string | null }
  | { type: 'counter_checkout'; consumption?: number; depositDeduction: number; reason: string; evidenceKeys: string[] }
  | { type: 'confirm_checkout' }
  | { type: 'accept_checkout' }
  | { type: 'dispute' | 'reject_checkout'; disputeId: string; reason: string; evidenceKeys: string[] }
  | { type: 'timeout'; openDispute: DisputeRef | null }
  | Arbitration
  | AdminEnd
  | { type: 'renew'; renewalId: string; hours: number; rent: number };

export type MoveType = Move['type'];

/**
 * Every move type, read off the state table's triggers: the handoff record is one move (`hand_over`)
 * whichever row it lands on (`handoff` or `note`), and `overdue` is a `timeout` as asked; triggerOf
 * (plan-move.ts) maps them back, and its type check fails for a move the table lacks.
 */
const MOVE_OF_TRIGGER: Partial<Record<OrderTrigger, MoveType>> = { handoff: 'hand_over', note: 'hand_over', overdue: 'timeout' };
export const MOVE_TYPES: readonly MoveType[] = [...new Set(ORDER_TRIGGERS.map((trigger) => MOVE_OF_TRIGGER[trigger] ?? (trigger as MoveType)))];

export interface MoveConfig {
  settings: OrderSettings;
  /** the length of one configured minute (ORDER_MINUTE_MS) */
  minuteMs: number;
}

export type PlannedEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** An audit entry, recorded in the name of whoever asked for the move. */
export interface PlannedAudit {
  action: string;
  biz_type: 'order' | 'dispute';
  biz_id: string;
  detail: Record<string, unknown>;
  result?: 'failure';
}

/** A handoff record to append; whoever carries the plan out seals the content. */
export interface PlannedHandoffRecord {
  author_id: string;
  author_role: 'owner' | 'renter';
  content: string;
  attachment_keys: string[];
  by_system: boolean;
  created_at: Date;
}

export interface PlannedDispute {
  id: string;
  type: 'handoff' | 'usage' | 'checkout';
  raised_by: string;
  reason: string;
  evidence_keys: string[];
  created_at: Date;
}

/** Everything a move does, as data: carried out in one transaction, in this order of fields. */
export interface MovePlan {
  /** the row of the state table taken */
  trigger: OrderTrigger;
  from: OrderState;
  to: OrderState;
  /** a dispute opened by the move (before the order names it) */
  openDispute: PlannedDispute | null;
  /** the order's columns: the state, its clock and deadline (the timers), and what the move records */
  changes: OrderChanges;
  handoffRecord: PlannedHandoffRecord | null;
  /** the order's open dispute, resolved by the move */
  resolveDispute: { id: string; result: ArbitrationResult; note: string; at: Date } | null;
  /** for the outbox, in order */
  events: PlannedEvent[];
  audits: PlannedAudit[];
}

/** The kind of move a type names (a kind may name several types, as the three arbitrations). */
export type MoveOf<T extends MoveType> = KindOf<Move, T>;
type KindOf<M, T> = M extends { type: infer U } ? ([T] extends [U] ? M : never) : never;

export function isArbitration(move: Move): move is Arbitration {
  return move.type === 'arbitrate_complete' || move.type === 'arbitrate_close' || move.type === 'arbitrate_mark_abnormal';
}
