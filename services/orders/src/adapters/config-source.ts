import { systemConfigValues } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { ConfigSource } from '../application/ports';

export function configSource(internal: InternalClient): ConfigSource {
  return {
    values: async () => (await internal.call(systemConfigValues)).items,
  };
}
