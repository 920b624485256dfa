import { ok } from '@market/sdk';
import { market } from './session';

/** The platform commission the server applies at settlement now (system config platform.commission_rate_bps). */
export async function commissionBps(): Promise<number> {
  const configs = await ok(market.api.GET('/api/admin/system-configs'));
  const value = configs.items.find((c) => c.key === 'platform.commission_rate_bps')?.value;
  return typeof value === 'number' ? value : 0;
}
