import type { Logger } from 'pino';

export interface Job {
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** How often a job that keeps failing says so again, after the first failure of a run of them. */
const STILL_FAILING_LOG_MS = 60_000;

/**
 * Runs `work` every `everyMs`, one run at a time, until stopped; a failed run is logged and the
 * next one still comes. Work that replicas must not do twice claims its rows with
 * `FOR UPDATE SKIP LOCKED` (the outbox relay, the timeout scan).
 *
 * While a dependency is away every run fails the same way: the first failure is logged at once,
 * then the job says it is still failing (with how many runs failed) once per `stillFailingLogMs`,
 * and once a run succeeds it says it recovered. A job run every second would otherwise write an
 * error a second per process for the whole outage, burying what else happened.
 */
export function periodicJob(
  name: string,
  everyMs: number,
  work: () => Promise<unknown>,
  log: Logger,
  { stillFailingLogMs = STILL_FAILING_LOG_MS }: { stillFailingLogMs?: number } = {},
): Job {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | null = null;
  let stopped = false;
  let failing: { since: number; failures: number; loggedAt: number } | null = null;

  const failed = (err: unknown) => {
    const now = Date.now();
    if (!failing) {
      failing = { since: now, failures: 1, loggedAt: now };
      log.error({ err, job: name }, 'periodic job failed');
      return;
    }
    failing.failures += 1;
    if (now - failing.loggedAt < stillFailingLogMs) return;
    failing.loggedAt = now;
    log.error({ err, job: name, failures: failing.failures, failing_since: new Date(failing.since).toISOString() }, 'periodic job still failing');
  };

  const succeeded = () => {
    if (!failing) return;
    log.info({ job: name, failures: failing.failures, failing_ms: Date.now() - failing.since }, 'periodic job recovered');
    failing = null;
  };

  const tick = () => {
    current = work()
      .then(succeeded, failed)
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
