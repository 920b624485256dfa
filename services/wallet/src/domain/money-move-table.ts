import { Forbidden, InvalidState, NotFound } from '@market/shared/errors';
import { lookUpCell, type Planned } from '@market/shared/planning';

/**
 * What a withdrawal and a refund share (ADR 0061): both are a user's money leaving through a
 * provider, moved by the same kinds of actor through a table of the same shape, holding the amount
 * the same way, and refused the same way. Each keeps only its own table, stamps and wording.
 */

/** Who moves it; a user is its `owner` or a `stranger` to it. */
export type MoneyMoveActor = { kind: 'user'; id: string } | { kind: 'admin'; id: string } | { kind: 'system' } | { kind: 'provider' };

export type MoneyMoveRole = 'owner' | 'stranger' | 'admin' | 'system' | 'provider';

/**
 * Where the held amount goes: from the user's balance into the hold, out to the provider, back to
 * the user, or (`return`) from the provider's payout account back to the user after a reversal.
 */
export type HoldTransfer = 'take' | 'pay_out' | 'release' | 'return';

/** The thing as its plan reads it; `status` null is one being opened, not yet stored. */
export interface PlannedMoneyMove<State> {
  id: string;
  user_id: string;
  amount: string | number;
  status: State | null;
}

/** The held amount moved. */
export type HoldEffect = { kind: 'hold'; transfer: HoldTransfer };

/** What a move does: the next state, the fields it stamps beside the status, its effects in order. */
export interface MoneyMovePlan<State, Stamps, Effect> {
  next: State;
  stamps: Stamps;
  effects: Effect[];
}

/** One allowed (state, move, actor) cell of a money-out table and what it does. */
export interface MoneyMoveCell<State, Move extends string, Event, Audit> {
  /** null: the thing is being opened, not stored yet */
  from: State | null;
  move: Move;
  actor: MoneyMoveRole;
  to: State;
  /** the decision is stamped (when, and by whom if a person) */
  decided?: true;
  hold?: HoldTransfer;
  event?: Event;
  audit?: Audit;
  /** sent to the provider once the move has committed */
  send?: true;
}

/** What the table tells of a move, for the refusal's wording. */
export interface MoneyMoveTable<Cell, Move extends string> {
  cells: readonly Cell[];
  /** "withdrawal", "refund": in NOT_FOUND and INVALID_STATE messages */
  noun: string;
  /** how a refusal names the move done ("it cannot be cancelled") */
  moveDone: Readonly<Record<Move, string>>;
}

export function roleOf(ownerId: string, actor: MoneyMoveActor): MoneyMoveRole {
  if (actor.kind === 'user') return actor.id === ownerId ? 'owner' : 'stranger';
  return actor.kind;
}

/** The person who made the move, when one did. */
export const actorId = (actor: MoneyMoveActor) => (actor.kind === 'user' || actor.kind === 'admin' ? actor.id : null);

/**
 * The plan of `move` by `actor` from the table, its stamps and effects made by `build` from the
 * allowed cell, or the refusal: a user never learns of another's (NOT_FOUND); a move the actor may
 * never make is FORBIDDEN; one it may make, but not from this state, is INVALID_STATE.
 */
export function planMoneyMove<State, Move extends string, Cell extends MoneyMoveCell<State, Move, unknown, unknown>, Stamps, Effect>(
  table: MoneyMoveTable<Cell, Move>,
  thing: { user_id: string; status: State | null },
  move: Move,
  actor: MoneyMoveActor,
  build: (cell: Cell) => { stamps: Stamps; effects: Effect[] },
): Planned<MoneyMovePlan<State, Stamps, Effect>> {
  const role = roleOf(thing.user_id, actor);
  if (role === 'stranger') return new NotFound(`${table.noun} not found`);
  const found = lookUpCell(table.cells, thing.status, move, role);
  if ('refused' in found) {
    if (found.refused === 'never_theirs') return new Forbidden();
    return new InvalidState(`the ${table.noun} is ${thing.status ?? 'not requested yet'}; it cannot be ${table.moveDone[move]}`);
  }
  return { next: found.cell.to, ...build(found.cell) };
}

/** A cell's effects in the order they are carried out: the hold, then the move's own (event, audit, alert), then the send. */
export function cellEffects<Effect>(cell: { hold?: HoldTransfer; send?: true }, own: Array<Effect | null | undefined>, send: Effect): Array<HoldEffect | Effect> {
  return [
    ...(cell.hold ? [{ kind: 'hold', transfer: cell.hold } satisfies HoldEffect] : []),
    ...own.filter((effect): effect is Effect => effect !== null && effect !== undefined),
    ...(cell.send ? [send] : []),
  ];
}

/** The decision's stamps of a cell that records one: when, and by whom if a person. */
export function decisionStamps(cell: { decided?: true }, actor: MoneyMoveActor, now: Date): { decided_at?: Date; decided_by?: string } {
  if (!cell.decided) return {};
  const by = actorId(actor);
  return by === null ? { decided_at: now } : { decided_at: now, decided_by: by };
}
