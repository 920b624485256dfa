import type { Logger } from '@market/shared/logging';
import type { Job } from '@market/shared/service';

/**
 * At start, asks the admin service until it answers (`load`); meanwhile the stored copy (or the
 * defaults, on a first start) applies. Later changes arrive as events. Admin may start after
 * orders, so a first attempt that finds it not answering yet is told at info; each later one warns.
 */
export function settingsLoader(load: () => Promise<void>, retryMs: number, log: Logger): Job {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let failures = 0;
  const attempt = (): void => {
    running = load().then(
      () => log.info('system configuration loaded from the admin service'),
      (err: unknown) => {
        failures += 1;
        const detail = { err: { message: (err as Error).message }, attempts: failures };
        if (failures === 1) log.info(detail, 'admin service does not answer with the configuration yet (it may still be starting); the stored configuration applies meanwhile');
        else log.warn(detail, 'admin service did not answer with the configuration; retrying');
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
