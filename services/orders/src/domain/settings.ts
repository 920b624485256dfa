import type { SystemConfigKey, SystemConfigValues } from '@market/contracts';

/** The system configuration orders works by, owned by the admin service (one schema: @market/contracts). */
export type OrderSettings = SystemConfigValues;
export type TimeoutKey = Exclude<SystemConfigKey, 'platform.commission_rate_bps' | 'order.require_realname'>;
