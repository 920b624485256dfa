import { disableRefusal, STATUS_CHANGES } from '../src/domain/admin-user';

describe('admin status rules', () => {
  const active = (id: string) => ({ id, status: 'active' as const });

  it('each change moves one status to the other', () => {
    expect(STATUS_CHANGES).toEqual({ disable: { from: 'active', to: 'disabled' }, enable: { from: 'disabled', to: 'active' } });
  });

  it.each([
    ['an active admin disables another while a third stays', 'a', active('b'), ['a', 'b', 'c'], null],
    ['an active admin disables the only other active one', 'a', active('b'), ['a', 'b'], null],
    ['nobody disables themselves, not even with others active', 'a', active('a'), ['a', 'b'], 'self'],
    ['a disabled admin cannot be disabled again', 'a', { id: 'b', status: 'disabled' as const }, ['a'], 'already_disabled'],
    ['the loser of a mutual disable finds its target the last active admin', 'a', active('b'), ['b'], 'last_active'],
    ['an actor disabled meanwhile is refused while others stay active', 'a', active('b'), ['b', 'c'], 'actor_disabled'],
  ])('%s', (_, actor, target, activeIds, expected) => {
    expect(disableRefusal(actor, target, activeIds)).toBe(expected);
  });
});
