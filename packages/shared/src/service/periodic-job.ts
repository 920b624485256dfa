import type { Logger } from 'pino';

export interface Job {
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/**
 * Runs `work` every `everyMs`, one run at a time, until stopped; a failed run is logged and the
 * next one still comes. Work that replicas must not do twice claims its rows with
 * `FOR UPDATE SKIP LOCKED` (the outbox relay, the timeout scan).
 */
export function periodicJob(name: string, everyMs: number, work: () => Promise<unknown>, log: Logger): Job {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | null = null;
  let stopped = false;

  const tick = () => {
    current = work()
      .then(
        () => undefined,
        (err: unknown) => log.error({ err, job: name }, 'periodic job failed'),
      )
      .finally(() => {
        current = null;
        if (!stopped) timer = setTimeout(tick, everyMs);
      });
  };

  return {
    start() {
      stopped = false;
      timer = setTimeout(tick, everyMs);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
