import { loadSession } from './session';

/**
 * What the console shows an admin. `GET /api/admin/me` answers `permissions` once admin roles
 * exist; until then (absent) every admin may do everything the back office offers. The names
 * below are the permission each screen or action needs: the one place to align with the server's.
 */
export const PERMISSIONS = {
  dashboard: 'dashboard.read',
  listings: 'listings.read',
  'listings.review': 'listings.review',
  users: 'users.read',
  'users.freeze': 'users.freeze',
  orders: 'orders.read',
  'orders.move': 'orders.manage',
  'orders.handoff': 'orders.handoff.read',
  disputes: 'disputes.read',
  'disputes.arbitrate': 'disputes.arbitrate',
  money: 'wallet.read',
  configs: 'configs.read',
  'configs.edit': 'configs.write',
  audit: 'audit.read',
  admins: 'admins.read',
  'admins.manage': 'admins.manage',
  uploads: 'open_uploads.read',
} as const;

export type Capability = keyof typeof PERMISSIONS;

export function allows(permissions: readonly string[] | undefined, capability: Capability): boolean {
  if (permissions === undefined) return true;
  return permissions.includes(PERMISSIONS[capability]) || permissions.includes('*');
}

/** For the signed-in admin. */
export function can(capability: Capability): boolean {
  return allows(loadSession()?.admin.permissions, capability);
}
