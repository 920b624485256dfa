import { ChannelListener } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import type { Job } from '@market/shared/service';
import type { SettingsCache } from '../application/settings-cache';

/** Keeps `cache` told of every committed change of the stored settings, and of whether it can be told (ADR 0068). */
export function settingsWatcher(cache: SettingsCache, databaseUrl: string, log: Logger): Job {
  const listener = new ChannelListener({
    databaseUrl,
    channel: cache.channel,
    log,
    onNotification: () => cache.changed(),
    onListening: (listening) => cache.listeningChanged(listening),
  });
  return { start: () => listener.start(), stop: () => listener.stop() };
}
