import { problems } from '@market/shared';
import { findActiveAdminByUsername, findActiveAdminsByNickname } from '../persistence/admin-users';
import type { AdminApp } from './admin-app';

/**
 * The open-upload rule (spec, rule 4): an active admin whose username is exactly the name, else
 * the one active admin whose nickname is exactly the name; a nickname two admins share matches nobody.
 */
export async function matchAdminUser(app: Pick<AdminApp, 'db'>, name: string): Promise<{ id: string; username: string; nickname: string }> {
  const byUsername = await findActiveAdminByUsername(app.db, name);
  const nicknameMatches = byUsername ? [] : await findActiveAdminsByNickname(app.db, name);
  const admin = byUsername ?? (nicknameMatches.length === 1 ? nicknameMatches[0] : undefined);
  if (!admin) throw problems.notFound('no active admin matches this name');
  return { id: admin.id, username: admin.username, nickname: admin.nickname };
}
