import { Forbidden, InvalidState } from '../src/errors';
import { everyCell, isRefusal, lookUpCell, outcomeOf, type CellVerdict, type Planned } from '../src/planning';

type Light = 'off' | 'on' | 'broken';
const CELLS: readonly { from: Light; move: 'switch' | 'break'; actor: 'user' | 'system'; to: Light }[] = [
  { from: 'off', move: 'switch', actor: 'user', to: 'on' },
  { from: 'on', move: 'switch', actor: 'user', to: 'off' },
  { from: 'on', move: 'break', actor: 'system', to: 'broken' },
];

function planLight(state: Light, move: 'switch' | 'break', actor: 'user' | 'system'): Planned<{ next: Light }> {
  const found = lookUpCell(CELLS, state, move, actor);
  if ('refused' in found) return found.refused === 'never_theirs' ? new Forbidden() : new InvalidState(`light is ${state}`);
  return { next: found.cell.to };
}

describe('the planner shape', () => {
  it('finds the allowed cell, else says whether the move is never the actor’s or not from this state', () => {
    expect(lookUpCell(CELLS, 'off', 'switch', 'user')).toEqual({ cell: CELLS[0] });
    expect(lookUpCell(CELLS, 'off', 'break', 'user')).toEqual({ refused: 'never_theirs' });
    expect(lookUpCell(CELLS, 'broken', 'switch', 'user')).toEqual({ refused: 'not_from_here' });
    expect(isRefusal(planLight('broken', 'switch', 'user'))).toBe(true);
    expect(isRefusal(planLight('off', 'switch', 'user'))).toBe(false);
  });

  it('enumerates every cell of the axes and sets the planner beside the listing', () => {
    const axes = { state: ['off', 'on', 'broken'], move: ['switch', 'break'], actor: ['user', 'system'] } as const;
    const { actual, expected } = everyCell(
      axes,
      ({ state, move, actor }) => outcomeOf(planLight(state, move, actor), (p) => p.next, (code) => code === 'INVALID_STATE'),
      ({ state, move, actor }): CellVerdict<Light> => {
        if (move === 'switch' && actor !== 'user') return { allowed: false, code: 'FORBIDDEN' };
        if (move === 'break' && actor !== 'system') return { allowed: false, code: 'FORBIDDEN' };
        if (move === 'switch' && state !== 'broken') return { allowed: true, to: state === 'on' ? 'off' : 'on' };
        if (move === 'break' && state === 'on') return { allowed: true, to: 'broken' };
        return { allowed: false, code: 'INVALID_STATE', message: `light is ${state}` };
      },
    );
    expect(actual).toHaveLength(12);
    expect(actual).toEqual(expected);
  });

  it('fails when the planner and the listing disagree on one cell, naming it', () => {
    const { actual, expected } = everyCell(
      { state: ['off', 'on'] as const },
      ({ state }) => outcomeOf(planLight(state, 'switch', 'user'), (p) => p.next),
      ({ state }): CellVerdict<Light> => ({ allowed: true, to: state === 'off' ? 'on' : 'on' }),
    );
    const wrong = actual.filter((a, i) => JSON.stringify(a) !== JSON.stringify(expected[i]));
    expect(wrong).toEqual([{ cell: { state: 'on' }, outcome: { allowed: true, to: 'off' } }]);
  });
});
