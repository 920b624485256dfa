import { isSystemConfigKey, SYSTEM_CONFIG_SCHEMAS, type z } from '@market/contracts';

/** The schema a key's value must satisfy; a key without one cannot be changed. Defaults are seeded by the migration. */
export function systemConfigSchema(key: string): z.ZodType | undefined {
  return isSystemConfigKey(key) ? SYSTEM_CONFIG_SCHEMAS[key] : undefined;
}
