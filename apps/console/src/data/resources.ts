import type { paths } from '@market/sdk';

type Path = keyof paths;

/**
 * Where each Refine resource of the console lives in the admin API. A list route pages with
 * `limit` + opaque `cursor` and answers `{ items, next_cursor }`; `one` takes `{id}`; `update`
 * (PUT) takes the record's id in its one path parameter (`{id}`, a config's `{key}`). A path that is not in the API document fails the type check.
 */
export interface ResourceRoutes {
  list?: Path;
  one?: Path;
  create?: Path;
  update?: Path;
  /** The list answers every row at once and takes no `limit` or `cursor`. */
  whole?: true;
}

export const RESOURCE_ROUTES = {
  listings: { list: '/api/admin/listings', one: '/api/admin/listings/{id}' },
  // the review queue: listings awaiting review, oldest first
  'listings-pending': { list: '/api/admin/listings/pending', one: '/api/admin/listings/{id}' },
  users: { list: '/api/admin/users' },
  orders: { list: '/api/admin/orders', one: '/api/admin/orders/{id}' },
  disputes: { list: '/api/admin/disputes' },
  ledger: { list: '/api/admin/wallet/ledger' },
  withdrawals: { list: '/api/admin/withdrawals' },
  refunds: { list: '/api/admin/refunds' },
  reconciliations: { list: '/api/admin/reconciliations', one: '/api/admin/reconciliations/{id}' },
  configs: { list: '/api/admin/system-configs', update: '/api/admin/system-configs/{key}', whole: true },
  audit: { list: '/api/admin/audit-logs' },
  admins: { list: '/api/admin/admins', create: '/api/admin/admins', update: '/api/admin/admins/{id}/roles' },
  uploads: { list: '/api/admin/open-uploads', one: '/api/admin/open-uploads/{id}' },
} as const satisfies Record<string, ResourceRoutes>;

export type ResourceName = keyof typeof RESOURCE_ROUTES;
