import { everyCell, isRefusal, type Planned } from '@market/shared/planning';
import type { HoldTransfer, MoneyMoveActor, MoneyMoveRole, PlannedMoneyMove } from '../src/domain/money-move-table';

export const OWNER = '0193a1b2-0000-7000-8000-00000000000a';
const OTHER = '0193a1b2-0000-7000-8000-00000000000b';
export const ADMIN = '0193a1b2-0000-7000-8000-00000000000c';
const THING = '0193a1b2-0000-7000-8000-0000000000ff';
export const NOW = new Date('2026-11-25T10:00:00Z');

/** One actor of each role: the thing's owner, another user, finance, the sender or a job, the provider's answer. */
const ACTORS: Record<MoneyMoveRole, MoneyMoveActor> = {
  owner: { kind: 'user', id: OWNER },
  stranger: { kind: 'user', id: OTHER },
  admin: { kind: 'admin', id: ADMIN },
  system: { kind: 'system' },
  provider: { kind: 'provider' },
};

/** The plan of a provider's final answer as a listing writes it: the thing moves to `next` with `stamps`, its hold moves as `hold` says, and `event` tells of it. */
export function settled<State extends string, Stamps, Event extends string>(next: State, stamps: Stamps, hold: HoldTransfer, event: Event) {
  return { next, stamps, effects: [{ kind: 'hold' as const, transfer: hold }, { kind: 'event' as const, type: event }] };
}

/** A money-out table written out by hand (ADR 0061: from the ADR and the API's description, never from the table under test). */
export interface MoneyMoveListing<State extends string, Move extends { name: string }, Plan> {
  /** "refund", "withdrawal": as the refusals word it */
  noun: string;
  planner(thing: PlannedMoneyMove<State>, move: Move, actor: MoneyMoveActor, now: Date): Planned<Plan>;
  /** every state, null being one not stored yet; every move */
  states: Array<State | null>;
  moves: Move[];
  /** how many cells the axes make, written out so that a state or move gone missing is noticed */
  cells: number;
  /** a move's key in `allowed` (its name unless told otherwise) */
  keyOf?(move: Move): string;
  /** what each allowed cell, keyed `${state ?? 'new'} ${move} ${role}`, does */
  allowed: Record<string, Plan>;
  /** the moves each role may make at all; any other move of theirs is forbidden whatever the state */
  may: Record<MoneyMoveRole, string[]>;
  /** how an INVALID_STATE refusal names the move done */
  moveDone: Readonly<Record<string, string>>;
}

/**
 * Plans every (state, move, actor) cell of a money-out table for a thing of 3,000 fen owned by
 * OWNER and holds each against the listing: the allowed cells do what it says, every other is
 * refused, a stranger with NOT_FOUND, a move never the actor's with FORBIDDEN, else INVALID_STATE.
 */
export function describeMoneyMoveTable<State extends string, Move extends { name: string }, Plan>(title: string, listing: MoneyMoveListing<State, Move, Plan>) {
  const keyOf = (move: Move) => listing.keyOf?.(move) ?? move.name;
  const key = (state: State | null, move: Move, role: MoneyMoveRole) => `${state ?? 'new'} ${keyOf(move)} ${role}`;
  const expected = (state: State | null, move: Move, role: MoneyMoveRole): Plan | { code: string; message: string } => {
    const allowed = listing.allowed[key(state, move, role)];
    if (role === 'stranger') return { code: 'NOT_FOUND', message: `${listing.noun} not found` };
    if (allowed) return allowed;
    if (!listing.may[role].includes(move.name)) return { code: 'FORBIDDEN', message: 'not allowed' };
    return { code: 'INVALID_STATE', message: `the ${listing.noun} is ${state ?? 'not requested yet'}; it cannot be ${listing.moveDone[move.name]}` };
  };
  const { actual, expected: listed } = everyCell(
    { state: listing.states, move: listing.moves, role: Object.keys(ACTORS) as MoneyMoveRole[] },
    ({ state, move, role }) => {
      const planned = listing.planner({ id: THING, user_id: OWNER, amount: '3000', status: state }, move, ACTORS[role], NOW);
      return isRefusal(planned) ? { code: planned.code, message: planned.message } : planned;
    },
    ({ state, move, role }) => expected(state, move, role),
  );
  const named = (cells: typeof actual) => cells.map(({ cell: { state, move, role }, outcome }) => ({ key: key(state, move, role), outcome }));

  describe(title, () => {
    it('covers every state, move and actor', () => {
      expect(actual).toHaveLength(listing.cells);
    });

    it('plans every cell as the listing expects', () => {
      expect(named(actual)).toEqual(named(listed));
    });

    it('allows exactly the listed cells', () => {
      const allowed = named(actual).filter(({ outcome }) => !('code' in (outcome as object)));
      expect(allowed.map(({ key }) => key).sort()).toEqual(Object.keys(listing.allowed).sort());
    });
  });
}
