import type { AdminPermission } from '@market/contracts';

/**
 * The permission each screen or action of the console needs: the same names the routes declare in
 * `@market/contracts` (a misspelt one fails the type check), so a menu entry or a button shows
 * exactly when the server would answer it. Screens are keyed by their Refine resource name, actions
 * by `resource.action`; the accessControlProvider (src/auth-provider.ts) answers Refine's `useCan` /
 * `<CanAccess>` with them (src/use-allowed.ts).
 */
export const PERMISSIONS = {
  dashboard: 'dashboard.read',
  listings: 'listings.read',
  'listings.review': 'listings.review',
  users: 'users.read',
  'users.freeze': 'users.freeze',
  orders: 'orders.read',
  'orders.move': 'orders.manage',
  'orders.reveal': 'handoffs.reveal',
  'orders.hideRatingComment': 'ratings.moderate',
  disputes: 'disputes.read',
  'disputes.arbitrate': 'disputes.arbitrate',
  money: 'ledger.read',
  withdrawals: 'withdrawals.read',
  'withdrawals.manage': 'withdrawals.manage',
  refunds: 'recharges.read',
  'refunds.manage': 'recharges.manage',
  'reconciliation.run': 'recharges.manage',
  configs: 'configs.read',
  'configs.edit': 'configs.manage',
  audit: 'audit.read',
  admins: 'admins.read',
  'admins.manage': 'admins.manage',
  uploads: 'uploads.read',
} as const satisfies Record<string, AdminPermission>;

export type Capability = keyof typeof PERMISSIONS;

export function allows(permissions: readonly AdminPermission[] | undefined, capability: Capability): boolean {
  return permissions?.includes(PERMISSIONS[capability]) ?? false;
}
