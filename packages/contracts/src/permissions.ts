import { z } from './zod';

/** Users, orders, disputes and ratings: what customer service holds beside the reads every desk has. */
const CUSTOMER_CARE = [
  'users.read',
  'users.freeze',
  'orders.read',
  'orders.manage',
  'disputes.read',
  'disputes.arbitrate',
  'handoffs.reveal',
  'ratings.moderate',
] as const;

/**
 * What a back-office route needs, one permission per route (ADR 0033). Reads and changes are
 * separate so a read-only role (the auditor) can hold every read and nothing else.
 */
export const ADMIN_PERMISSIONS = [
  'admins.read',
  'admins.manage',
  'configs.read',
  'configs.manage',
  'audit.read',
  'dashboard.read',
  'listings.read',
  'listings.review',
  'uploads.read',
  'files.read',
  ...CUSTOMER_CARE,
  'ledger.read',
  'recharges.read',
  'recharges.manage',
  'withdrawals.read',
  'withdrawals.manage',
] as const;
export const AdminPermission = z.enum(ADMIN_PERMISSIONS).openapi('AdminPermission');
export type AdminPermission = z.infer<typeof AdminPermission>;

/**
 * What an admin route declares: a permission, or `own_account` for what every signed-in admin
 * does to their own account (read themselves, log out, change their password).
 */
export type RoutePermission = AdminPermission | 'own_account';

export const ADMIN_ROLES = ['super_admin', 'reviewer', 'customer_service', 'finance', 'auditor'] as const;
export const AdminRole = z.enum(ADMIN_ROLES).openapi('AdminRole', {
  description:
    '`super_admin`: everything, and the only role that manages admins and configs; `reviewer`: listings and open uploads; ' +
    '`customer_service`: orders, disputes and arbitration, handoff reveal, rating moderation, user freezes; `finance`: ledger, recharges, ' +
    'withdrawals; `auditor`: every read, the audit log included, and no change',
});
export type AdminRole = z.infer<typeof AdminRole>;

const READS = ADMIN_PERMISSIONS.filter((p) => p.endsWith('.read'));

/** The one table of who may do what; the gateway and `GET /api/admin/me` both read it. */
export const ROLE_PERMISSIONS: Record<AdminRole, readonly AdminPermission[]> = {
  super_admin: ADMIN_PERMISSIONS,
  reviewer: ['dashboard.read', 'listings.read', 'listings.review', 'uploads.read', 'files.read'],
  customer_service: ['dashboard.read', 'listings.read', 'files.read', ...CUSTOMER_CARE],
  finance: ['dashboard.read', 'orders.read', 'ledger.read', 'recharges.read', 'recharges.manage', 'withdrawals.read', 'withdrawals.manage'],
  auditor: READS,
};

/** The permissions a set of roles grants, each once, in the order of `ADMIN_PERMISSIONS`. */
export function permissionsOf(roles: readonly AdminRole[]): AdminPermission[] {
  const granted = new Set(roles.flatMap((role) => ROLE_PERMISSIONS[role] ?? []));
  return ADMIN_PERMISSIONS.filter((p) => granted.has(p));
}

/** Whether roles allow a route's declared permission. */
export function rolesAllow(roles: readonly AdminRole[], permission: RoutePermission): boolean {
  if (permission === 'own_account') return true;
  return roles.some((role) => ROLE_PERMISSIONS[role]?.includes(permission));
}
