import type { SystemConfig, z } from '@market/contracts';
import { listSystemConfigRows } from '../persistence/system-configs';
import type { AdminDeps } from './deps';
import { systemConfigView } from './views';

export async function listSystemConfigs(deps: Pick<AdminDeps, 'db'>): Promise<{ items: z.infer<typeof SystemConfig>[] }> {
  return { items: (await listSystemConfigRows(deps.db)).map(systemConfigView) };
}

/** What other services read (`GET /internal/system-configs`): the values and when each was changed, so a reader keeps the newest. */
export async function listSystemConfigValues(deps: Pick<AdminDeps, 'db'>): Promise<{ items: Array<{ key: string; value: unknown; updated_at: string | null }> }> {
  return {
    items: (await listSystemConfigRows(deps.db)).map(({ key, value, updated_at }) => ({ key, value, updated_at: updated_at?.toISOString() ?? null })),
  };
}
