import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/logging';
import { periodicJob } from '../src/service';

const log = createLogger('test', 'silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('periodic jobs', () => {
  it('run repeatedly, one run at a time, keep going after a failed run, and stop cleanly', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const job = periodicJob(
      'test',
      10,
      async () => {
        runs += 1;
        concurrent += 1;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        await sleep(25);
        concurrent -= 1;
        if (runs === 2) throw new Error('one bad run');
      },
      log,
    );
    job.start();
    // runs go on past the failed second one: waited for by count, however slowly a loaded machine
    // gets there (the test's timeout fails it if they stop)
    while (runs < 4) await sleep(10);
    await job.stop();
    const afterStop = runs;
    expect(maxConcurrent).toBe(1);
    expect(concurrent).toBe(0);
    await sleep(100);
    expect(runs).toBe(afterStop);
  });

  describe('a run of failures', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'periodic-job-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const lines = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { level: string; msg: string; failures?: number; job: string });

    it('is logged at its first failure, then at most once per interval while it lasts, and its end once', async () => {
      const file = path.join(dir, 'log.jsonl');
      let runs = 0;
      // runs 1–2 succeed, 3–(3+n) fail, then success again; then a second outage of one failed run
      let outageEnds = Infinity;
      let failingFrom = 0;
      const job = periodicJob(
        'flaky',
        5,
        async () => {
          runs += 1;
          if (runs === 3) failingFrom = Date.now();
          // the first outage lasts 20 failed runs and 300 ms at least: several intervals of 100 ms
          if (runs >= 23 && outageEnds === Infinity && Date.now() - failingFrom > 300) outageEnds = runs;
          if (runs >= 3 && runs < outageEnds) throw new Error('the store is away');
          if (runs === outageEnds + 3) throw new Error('away once more');
        },
        createLogger('test', 'info', file),
        { stillFailingLogMs: 100 },
      );
      job.start();
      while (runs < outageEnds + 5) await new Promise((r) => setTimeout(r, 10));
      await job.stop();

      const logged = lines(file).filter((line) => line.job === 'flaky');
      const failedRuns = outageEnds - 3;
      expect(failedRuns).toBeGreaterThanOrEqual(20);
      const messages = logged.map((line) => line.msg);
      // the outage: its first failure, a reminder per 100 ms of it (far fewer than its failed runs), its end
      expect(messages[0]).toBe('periodic job failed');
      const reminders = messages.slice(1, messages.indexOf('periodic job recovered'));
      expect(reminders.length).toBeGreaterThanOrEqual(1);
      expect(reminders.length).toBeLessThan(failedRuns - 1);
      expect(new Set(reminders)).toEqual(new Set(['periodic job still failing']));
      const firstRecovery = logged.find((line) => line.msg === 'periodic job recovered')!;
      expect(firstRecovery).toMatchObject({ level: 'info', failures: failedRuns });
      // the second outage is logged at once again, and its end with its own count
      expect(messages.slice(messages.indexOf('periodic job recovered') + 1)).toEqual(['periodic job failed', 'periodic job recovered']);
      expect(logged.at(-1)).toMatchObject({ failures: 1 });
    });
  });
});
