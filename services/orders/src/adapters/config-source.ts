import { systemConfigValues, type InternalClient } from '@market/shared';
import type { ConfigSource } from '../application/ports';

export function configSource(internal: InternalClient): ConfigSource {
  return {
    values: async () => (await internal.call(systemConfigValues)).items,
  };
}
