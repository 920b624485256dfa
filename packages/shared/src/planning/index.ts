import { DomainError } from '../errors';

/**
 * The one shape of a state planner (ADR 0042, ADR 0061): a pure function of the thing's state, the
 * move, who makes it and the time, answering a plan (what to write, publish and audit, as data) or
 * the refusal, a `DomainError` the caller throws. Returning the refusal instead of throwing keeps
 * the planner a plain function a table test can call for every cell.
 */
export type Planned<Plan> = Plan | DomainError;

/** Whether the planner refused: what the application checks before carrying a plan out. */
export function isRefusal<Plan>(planned: Planned<Plan>): planned is DomainError {
  return planned instanceof DomainError;
}

/** One allowed cell of a state table: from a state, a move by an actor leads to a state. */
export interface TableCell<State, Move extends string, Actor extends string> {
  from: State;
  move: Move;
  actor: Actor;
  to: State;
}

/**
 * Where a (state, move, actor) falls in the table: its allowed cell, or why there is none —
 * `never_theirs` when the table has the move for no state by this actor (a 403 in every service),
 * `not_from_here` when it has it, but not from this state (an INVALID_STATE). `matches` says whether
 * a cell's `from` covers the state (a cell may leave part of the state open).
 */
export type CellLookup<Cell> = { cell: Cell } | { refused: 'never_theirs' | 'not_from_here' };

export function lookUpCell<State, Cell extends TableCell<unknown, string, string>>(
  cells: readonly Cell[],
  state: State,
  move: Cell['move'],
  actor: Cell['actor'],
  matches: (from: Cell['from'], state: State) => boolean = (from, s) => from === s,
): CellLookup<Cell> {
  const theirs = cells.filter((c) => c.move === move && c.actor === actor);
  if (theirs.length === 0) return { refused: 'never_theirs' };
  const cell = theirs.find((c) => matches(c.from, state));
  return cell ? { cell } : { refused: 'not_from_here' };
}

/** One cell of an exhaustive table test: its coordinates and the outcome the planner gave or the listing expects. */
export interface CellOutcome<Coordinates, Outcome> {
  cell: Coordinates;
  outcome: Outcome;
}

/**
 * The exhaustive table test of a planner, in one place: every combination of `axes` (states × moves
 * × actors × whatever facts the planner reads) is planned and written out next to what the
 * hand-written listing expects. The listing is kept apart from the planner's table on purpose — a
 * test that read the table would agree with any mistake in it. Framework-free: the caller compares
 * `actual` with `expected` (`expect(actual).toEqual(expected)`), so a mismatch names its cell.
 */
export function everyCell<Axes extends Record<string, readonly unknown[]>, Outcome>(
  axes: Axes,
  plan: (cell: { [K in keyof Axes]: Axes[K][number] }) => Outcome,
  expect: (cell: { [K in keyof Axes]: Axes[K][number] }) => NoInfer<Outcome>,
): { actual: CellOutcome<{ [K in keyof Axes]: Axes[K][number] }, Outcome>[]; expected: CellOutcome<{ [K in keyof Axes]: Axes[K][number] }, Outcome>[] } {
  type Cell = { [K in keyof Axes]: Axes[K][number] };
  let cells: Record<string, unknown>[] = [{}];
  for (const [name, values] of Object.entries(axes)) cells = cells.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  const typed = cells as Cell[];
  return {
    actual: typed.map((cell) => ({ cell, outcome: plan(cell) })),
    expected: typed.map((cell) => ({ cell, outcome: expect(cell) })),
  };
}

/** A cell's outcome as a table test compares it: allowed, leading to `to`, or refused with a code. */
export type CellVerdict<Summary> = { allowed: true; to: Summary } | { allowed: false; code: string; message?: string };

/**
 * A planned outcome as a table test compares it: the refusal by its code (and message, when
 * `withMessage` says it matters for this code), or what `summary` keeps of the plan.
 */
export function outcomeOf<Plan, Summary>(
  planned: Planned<Plan>,
  summary: (plan: Plan) => Summary,
  withMessage: (code: string) => boolean = () => false,
): CellVerdict<Summary> {
  if (isRefusal(planned)) return withMessage(planned.code) ? { allowed: false, code: planned.code, message: planned.message } : { allowed: false, code: planned.code };
  return { allowed: true, to: summary(planned) };
}

/** The plan, or its refusal thrown: where an application carries a plan out or answers the refusal. */
export function planOrThrow<Plan>(planned: Planned<Plan>): Plan {
  if (isRefusal(planned)) throw planned;
  return planned;
}
