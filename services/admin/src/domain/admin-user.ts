import { AdminNickname, AdminPassword, AdminRoles, AdminStatus as AdminStatusSchema, AdminUsername, z, type AdminRole } from '@market/contracts';

export { AdminNickname, AdminPassword, AdminUsername };

export const NewAdmin = z.object({ username: AdminUsername, nickname: AdminNickname, password: AdminPassword, roles: AdminRoles.default([]) });
export type NewAdmin = z.infer<typeof NewAdmin>;

export type AdminStatus = z.infer<typeof AdminStatusSchema>;

export type LoginVerdict = 'granted' | 'wrong_password' | 'disabled';

/**
 * The password is judged before the status, so a wrong guess at a disabled account looks like
 * any other wrong guess and only the owner of the password learns that the account is disabled.
 */
export function loginVerdict(passwordMatches: boolean, status: AdminStatus): LoginVerdict {
  if (!passwordMatches) return 'wrong_password';
  return status === 'active' ? 'granted' : 'disabled';
}

/** Seconds until a lock lifts, at least one (Retry-After must be a positive integer). */
export function secondsUntil(lockedUntil: Date, now: Date): number {
  return Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
}

export type StatusChange = 'disable' | 'enable';

/** The admin status machine: each change moves one status to the other and nothing else. */
export const STATUS_CHANGES: Record<StatusChange, { from: AdminStatus; to: AdminStatus }> = {
  disable: { from: 'active', to: 'disabled' },
  enable: { from: 'disabled', to: 'active' },
};

export type DisableRefusal = 'self' | 'already_disabled' | 'last_active' | 'last_super_admin' | 'actor_disabled';

/** The admin a change is about, as the change read it. */
export interface AdminTarget {
  id: string;
  status: AdminStatus;
  roles: readonly AdminRole[];
}

/** Whether `target` is the only active admin left who may manage admins. */
function isLastSuperAdmin(target: AdminTarget, activeSuperAdminIds: readonly string[]): boolean {
  return target.roles.includes('super_admin') && activeSuperAdminIds.every((id) => id === target.id);
}

/**
 * Why `actorId` may not disable `target`, judged against the admins active right now; null when it
 * may. The back office must always keep someone who can log in, and nobody locks themselves out.
 * An active actor and an active target make two active admins, so `last_active` is what the loser
 * of two admins disabling each other at once hears; it is judged before the actor's own status
 * for that reason.
 */
export function disableRefusal(actorId: string, target: AdminTarget, activeIds: readonly string[], activeSuperAdminIds: readonly string[]): DisableRefusal | null {
  if (target.id === actorId) return 'self';
  if (target.status !== STATUS_CHANGES.disable.from) return 'already_disabled';
  if (activeIds.every((id) => id === target.id)) return 'last_active';
  // Someone must still be able to manage admins (the actor may have lost the role meanwhile).
  if (isLastSuperAdmin(target, activeSuperAdminIds)) return 'last_super_admin';
  if (!activeIds.includes(actorId)) return 'actor_disabled';
  return null;
}

export type RolesRefusal = 'self' | 'last_super_admin';

/**
 * Why `actorId` may not give `target` these roles; null when it may. Nobody widens or narrows
 * their own roles, and some active admin must keep the power to manage admins.
 */
export function rolesRefusal(actorId: string, target: AdminTarget, roles: readonly AdminRole[], activeSuperAdminIds: readonly string[]): RolesRefusal | null {
  if (target.id === actorId) return 'self';
  if (!roles.includes('super_admin') && isLastSuperAdmin(target, activeSuperAdminIds)) return 'last_super_admin';
  return null;
}
