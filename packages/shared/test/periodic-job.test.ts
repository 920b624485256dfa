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
});
