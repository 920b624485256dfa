import { GATEWAY_DEFAULT_PORT, SERVICE_REGISTRY, type ServiceName } from './services';

/**
 * Which service owns which public path (docs/architecture.md, "Who owns which public route").
 * Order matters: the first matching prefix wins, so the `/api/admin/...` entries owned by
 * domain services come before the admin service's catch-all entries.
 */
export const ROUTE_OWNERS: ReadonlyArray<{ prefix: string; service: ServiceName }> = [
  { prefix: '/api/admin/users', service: 'identity' },
  { prefix: '/api/admin/listings', service: 'catalog' },
  { prefix: '/api/admin/open-uploads', service: 'catalog' },
  { prefix: '/api/admin/orders', service: 'orders' },
  { prefix: '/api/admin/disputes', service: 'orders' },
  { prefix: '/api/admin/renters', service: 'orders' },
  { prefix: '/api/admin/wallet', service: 'wallet' },
  { prefix: '/api/admin/withdrawals', service: 'wallet' },
  { prefix: '/api/admin/refunds', service: 'wallet' },
  { prefix: '/api/admin/reconciliations', service: 'wallet' },
  { prefix: '/api/admin/files', service: 'files' },
  { prefix: '/api/admin/notifications', service: 'notify' },
  { prefix: '/api/admin/auth', service: 'admin' },
  { prefix: '/api/admin/me', service: 'admin' },
  { prefix: '/api/admin/admins', service: 'admin' },
  { prefix: '/api/admin/system-configs', service: 'admin' },
  { prefix: '/api/admin/audit-logs', service: 'admin' },
  { prefix: '/api/admin/dashboard', service: 'admin' },
  { prefix: '/api/admin/money-check', service: 'admin' },
  { prefix: '/api/auth', service: 'identity' },
  { prefix: '/api/me', service: 'identity' },
  { prefix: '/api/realname', service: 'identity' },
  { prefix: '/api/listings', service: 'catalog' },
  { prefix: '/api/seller/listings', service: 'catalog' },
  { prefix: '/api/seller/blocks', service: 'orders' },
  { prefix: '/api/open/listing-uploads', service: 'catalog' },
  { prefix: '/api/orders', service: 'orders' },
  { prefix: '/api/disputes', service: 'orders' },
  { prefix: '/api/wallet', service: 'wallet' },
  { prefix: '/api/payments/paygate', service: 'wallet' },
  { prefix: '/api/payments/sandbox', service: 'wallet' },
  { prefix: '/api/payments/alipay', service: 'wallet' },
  { prefix: '/api/payments/wechatpay', service: 'wallet' },
  { prefix: '/api/files', service: 'files' },
  { prefix: '/api/notifications', service: 'notify' },
];

/** The owning service of a public path, matching whole path segments only (`/api/me` is not `/api/media`). */
export function ownerOf(path: string): ServiceName | undefined {
  for (const { prefix, service } of ROUTE_OWNERS) {
    if (path === prefix || path.startsWith(prefix + '/')) return service;
  }
  return undefined;
}

export const SERVICE_NAMES: readonly ServiceName[] = SERVICE_REGISTRY.map((s) => s.name);

/** Who may assert a service identity on an internal call: a service, or the gateway reporting what it refused at the edge. */
export type InternalCaller = ServiceName | 'gateway';
export const INTERNAL_CALLERS: readonly InternalCaller[] = [...SERVICE_NAMES, 'gateway'];

/** Default local ports; each service also takes `PORT` from its environment. */
export const DEFAULT_PORTS = Object.fromEntries([
  ['gateway', GATEWAY_DEFAULT_PORT],
  ...SERVICE_REGISTRY.map((s) => [s.name, GATEWAY_DEFAULT_PORT + s.portOffset]),
]) as Record<ServiceName | 'gateway', number>;
