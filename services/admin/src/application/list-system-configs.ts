import type { SystemConfig, z } from '@market/contracts';
import { listSystemConfigRows } from '../persistence/system-configs';
import type { AdminDeps } from './deps';
import { systemConfigView } from './views';

export async function listSystemConfigs(deps: Pick<AdminDeps, 'db'>): Promise<{ items: z.infer<typeof SystemConfig>[] }> {
  return { items: (await listSystemConfigRows(deps.db)).map(systemConfigView) };
}

/** What other services read (`GET /internal/system-configs`): the values alone. */
export async function listSystemConfigValues(deps: Pick<AdminDeps, 'db'>): Promise<{ items: Array<{ key: string; value: unknown }> }> {
  return { items: (await listSystemConfigRows(deps.db)).map(({ key, value }) => ({ key, value })) };
}
