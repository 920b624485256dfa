import { NotFound } from '@market/shared/errors';
import { findActiveAdminByUsername, findActiveAdminsByNickname } from '../persistence/admin-users';
import type { AdminDeps } from './deps';

/**
 * The open-upload rule (spec, rule 4): an active admin whose username is exactly the name, else
 * the one active admin whose nickname is exactly the name; a nickname two admins share matches nobody.
 */
export async function matchAdminUser(deps: Pick<AdminDeps, 'db'>, name: string): Promise<{ id: string; username: string; nickname: string }> {
  const byUsername = await findActiveAdminByUsername(deps.db, name);
  const nicknameMatches = byUsername ? [] : await findActiveAdminsByNickname(deps.db, name);
  const admin = byUsername ?? (nicknameMatches.length === 1 ? nicknameMatches[0] : undefined);
  if (!admin) throw new NotFound('no active admin matches this name');
  return { id: admin.id, username: admin.username, nickname: admin.nickname };
}
