import type { SystemConfig, z } from '@market/shared';
import { listSystemConfigRows } from '../persistence/system-configs';
import type { AdminApp } from './admin-app';
import { systemConfigView } from './views';

export async function listSystemConfigs(app: Pick<AdminApp, 'db'>): Promise<{ items: z.infer<typeof SystemConfig>[] }> {
  return { items: (await listSystemConfigRows(app.db)).map(systemConfigView) };
}

/** What other services read (`GET /internal/system-configs`): the values alone. */
export async function listSystemConfigValues(app: Pick<AdminApp, 'db'>): Promise<{ items: Array<{ key: string; value: unknown }> }> {
  return { items: (await listSystemConfigRows(app.db)).map(({ key, value }) => ({ key, value })) };
}
