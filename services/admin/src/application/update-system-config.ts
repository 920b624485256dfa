import { type SystemConfig, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { recordAudit } from '@market/shared/events';
import { InvalidInput, NotFound, zodIssuesToFieldErrors } from '@market/shared/errors';
import { systemConfigSchema } from '../domain/system-config';
import { lockSystemConfig, writeSystemConfig } from '../persistence/system-configs';
import type { AdminDeps } from './deps';
import { systemConfigView } from './views';

/** The new value, `system_config.changed` and the audit entry commit together or not at all. */
export async function updateSystemConfig(
  deps: Pick<AdminDeps, 'db' | 'events'>,
  identity: AdminIdentity,
  key: string,
  value: unknown,
): Promise<z.infer<typeof SystemConfig>> {
  const schema = systemConfigSchema(key);
  if (!schema) throw new NotFound(`no configuration key ${key}`);
  const checked = schema.safeParse(value);
  if (!checked.success) throw new InvalidInput(zodIssuesToFieldErrors(checked.error.issues, 'value'), `value is not valid for ${key}`);

  return deps.db.transaction(async (tx) => {
    const previous = await lockSystemConfig(tx, key);
    if (!previous) throw new NotFound(`no configuration key ${key}`);
    const row = await writeSystemConfig(tx, key, checked.data, identity.sub);
    await deps.events.publish(tx, 'system_config.changed', {
      key,
      value: row.value,
      updated_by: identity.sub,
      updated_at: row.updated_at!.toISOString(),
    });
    await recordAudit(deps.events, tx, identity, {
      action: 'system_config.update',
      biz_type: 'system_config',
      biz_id: key,
      detail: { previous_value: previous.value, value: row.value },
    });
    return systemConfigView(row);
  });
}
