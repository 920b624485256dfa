import type { AdminRole } from '@market/contracts';
import { disableRefusal, rolesRefusal, STATUS_CHANGES } from '../src/domain/admin-user';

describe('admin status rules', () => {
  const active = (id: string, roles: AdminRole[] = []) => ({ id, status: 'active' as const, roles });

  it('each change moves one status to the other', () => {
    expect(STATUS_CHANGES).toEqual({ disable: { from: 'active', to: 'disabled' }, enable: { from: 'disabled', to: 'active' } });
  });

  it.each([
    ['an active admin disables another while a third stays', 'a', active('b'), ['a', 'b', 'c'], null],
    ['an active admin disables the only other active one', 'a', active('b'), ['a', 'b'], null],
    ['nobody disables themselves, not even with others active', 'a', active('a'), ['a', 'b'], 'self'],
    ['a disabled admin cannot be disabled again', 'a', { id: 'b', status: 'disabled' as const, roles: [] }, ['a'], 'already_disabled'],
    ['the loser of a mutual disable finds its target the last active admin', 'a', active('b'), ['b'], 'last_active'],
    ['an actor disabled meanwhile is refused while others stay active', 'a', active('b'), ['b', 'c'], 'actor_disabled'],
  ])('%s', (_, actor, target, activeIds, expected) => {
    expect(disableRefusal(actor, target, activeIds, [])).toBe(expected);
  });

  it.each([
    ['a super admin disables another while a super admin stays', active('b', ['super_admin']), ['a', 'b'], null],
    ['the last active super admin stays, whoever asks', active('b', ['super_admin']), ['b'], 'last_super_admin'],
    ['an admin without the role is no super admin to keep', active('b', ['reviewer']), [], null],
  ])('%s', (_, target, superIds, expected) => {
    expect(disableRefusal('a', target, ['a', 'b', 'c'], superIds)).toBe(expected);
  });

  it.each([
    ['nobody changes their own roles', 'a', active('a', ['super_admin']), ['reviewer'], ['a', 'b'], 'self'],
    ['a super admin takes another’s role while one stays', 'a', active('b', ['super_admin']), [], ['a', 'b'], null],
    ['the last super admin keeps the role', 'a', active('b', ['super_admin']), ['auditor'], ['b'], 'last_super_admin'],
    ['keeping the role is always allowed', 'a', active('b', ['super_admin']), ['super_admin', 'auditor'], ['b'], null],
    ['roles of a non-super admin change freely', 'a', active('b', ['reviewer']), ['finance'], [], null],
  ] as const)('%s', (_, actor, target, roles, superIds, expected) => {
    expect(rolesRefusal(actor, target, [...roles], superIds)).toBe(expected);
  });
});
