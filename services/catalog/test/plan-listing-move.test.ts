import { everyCell, outcomeOf } from '@market/shared/planning';
import { planListingMove, type ListingPlan } from '../src/domain/plan-listing-move';
import { ACTORS, ALL_STATES, expectedOutcome, key, MOVES, type Actor, type Move, type State } from './expected-listing-moves';

const NOW = new Date('2026-11-25T12:00:00Z');
const FACTS = [
  { rented: false, ownerFrozen: false },
  { rented: true, ownerFrozen: false },
  { rented: false, ownerFrozen: true },
  { rented: true, ownerFrozen: true },
];

function outcome(state: State, move: Move, actor: Actor, facts: { rented: boolean; ownerFrozen: boolean }, reason: string | null = 'a reason') {
  return planListingMove({ ...state, ...facts }, { name: move, reason }, actor, NOW);
}

describe('planListingMove, every (state, move, actor) cell against the written expectations', () => {
  for (const move of MOVES) {
    for (const actor of ACTORS) {
      it(`${move} by ${actor}`, () => {
        const { actual, expected } = everyCell(
          { state: ALL_STATES, facts: FACTS },
          ({ state, facts }) => outcomeOf(outcome(state, move, actor, facts), (plan) => plan.next, (code) => code === 'INVALID_STATE'),
          ({ state, facts }) => expectedOutcome(state, move, actor, facts),
        );
        const named = (cells: typeof actual) => cells.map(({ cell: { state, facts }, outcome }) => ({ from: key(state), ...facts, outcome }));
        expect(named(actual)).toEqual(named(expected));
      });
    }
  }
});

describe('what an allowed move does besides its state', () => {
  /** Written per move: which reason stays on the row, what becomes of the reject reason, the audit, the freeze hold. */
  const EFFECTS: Record<Move, { event: string; statusReason: boolean; rejectReason: 'reason' | 'cleared' | 'unchanged'; audited: boolean; held: boolean }> = {
    submit: { event: 'listing.submitted', statusReason: false, rejectReason: 'cleared', audited: false, held: false },
    approve: { event: 'listing.approved', statusReason: false, rejectReason: 'cleared', audited: true, held: false },
    reject: { event: 'listing.rejected', statusReason: false, rejectReason: 'reason', audited: true, held: false },
    offline: { event: 'listing.offlined', statusReason: true, rejectReason: 'unchanged', audited: true, held: false },
    mark_abnormal: { event: 'listing.marked_abnormal', statusReason: true, rejectReason: 'unchanged', audited: true, held: false },
    edit: { event: 'listing.updated', statusReason: false, rejectReason: 'unchanged', audited: false, held: false },
    delete: { event: 'listing.deleted', statusReason: false, rejectReason: 'unchanged', audited: false, held: false },
    owner_frozen: { event: 'listing.offlined', statusReason: true, rejectReason: 'unchanged', audited: false, held: true },
    owner_unfrozen: { event: 'listing.restored', statusReason: false, rejectReason: 'unchanged', audited: false, held: false },
  };

  const allowedCells = MOVES.flatMap((move) =>
    ACTORS.flatMap((actor) =>
      ALL_STATES.flatMap((state) => {
        const expected = expectedOutcome(state, move, actor);
        return expected.allowed ? [{ state, move, actor, to: expected.to }] : [];
      }),
    ),
  );

  it('has every move allowed somewhere', () => {
    expect(new Set(allowedCells.map((c) => c.move))).toEqual(new Set(MOVES));
  });

  it.each([['a reason' as string | null], [null]])('plans the event, columns, audit entry and freeze hold of each allowed cell (reason %p)', (reason) => {
    for (const { state, move, actor, to } of allowedCells) {
      const plan = outcome(state, move, actor, { rented: false, ownerFrozen: false }, reason) as ListingPlan;
      const effects = EFFECTS[move];
      const expected: ListingPlan = {
        next: to,
        changes: {
          ...to,
          status_reason: effects.statusReason ? reason : null,
          ...(effects.rejectReason === 'unchanged' ? {} : { reject_reason: effects.rejectReason === 'reason' ? reason : null }),
          updated_at: NOW,
        },
        event: { type: effects.event as ListingPlan['event']['type'], reason },
        audit: effects.audited
          ? { action: `listing.${move}`, detail: { from: state, to, ...(reason === null ? {} : { reason }) } }
          : null,
        heldByFreeze: effects.held,
      };
      expect({ from: key(state), move, actor, plan }).toEqual({ from: key(state), move, actor, plan: expected });
    }
  });
});
