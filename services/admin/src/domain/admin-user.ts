import { z } from 'zod';

export const AdminUsername = z
  .string()
  .regex(/^[a-z0-9_.-]{3,32}$/, 'must be 3 to 32 characters from a-z, 0-9, "_", "." and "-"');
export const AdminNickname = z.string().trim().min(1).max(32);
export const AdminPassword = z.string().min(12, 'must be at least 12 characters').max(200, 'must be at most 200 characters');

export const NewAdmin = z.object({ username: AdminUsername, nickname: AdminNickname, password: AdminPassword });
export type NewAdmin = z.infer<typeof NewAdmin>;

export type AdminStatus = 'active' | 'disabled';

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
