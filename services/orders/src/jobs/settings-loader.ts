import type { Logger } from '@market/shared/logging';
import type { Job } from '@market/shared/service';
import type { OrdersDeps } from '../application/deps';
import { loadSettingsFromAdmin } from '../application/settings';

/**
 * At start, asks the admin service until it answers (it may start after orders); meanwhile the
 * stored copy (or the defaults, on a first start) applies. Later changes arrive as events.
 */
export function settingsLoader(deps: Pick<OrdersDeps, 'db' | 'configSource' | 'minuteMs' | 'settings'>, retryMs: number, log: Logger): Job {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const attempt = (): void => {
    running = loadSettingsFromAdmin(deps).then(
      () => log.info('system configuration loaded from the admin service'),
      (err: unknown) => {
        log.warn({ err: { message: (err as Error).message } }, 'admin service did not answer with the configuration; retrying');
        if (!stopped) timer = setTimeout(attempt, retryMs);
      },
    );
  };
  return {
    start() {
      stopped = false;
      attempt();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
