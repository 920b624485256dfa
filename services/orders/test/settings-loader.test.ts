import { createLogger } from '@market/shared/logging';
import { capturedLog, eventually } from '@market/testkit';
import { settingsLoader } from '../src/jobs/settings-loader';

describe('asking admin for the configuration at start', () => {
  const linesOf = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; msg: string; attempts?: number });

  it('tells a first unanswered ask at info (admin may still be starting), warns of every later one, and stops asking once answered', async () => {
    const logs = capturedLog('orders-settings');
    const log = createLogger('orders', 'info', logs.file);
    let asked = 0;
    // admin answers at the third ask
    const load = async () => {
      asked += 1;
      if (asked < 3) throw new Error('a backing service is unavailable; try again shortly');
    };
    const loader = settingsLoader(load, 50, log);
    loader.start();
    try {
      await eventually(async () => linesOf(logs.text()), (lines) => lines.some((l) => l.msg === 'system configuration loaded from the admin service'), 5_000);
    } finally {
      await loader.stop();
    }
    const told = linesOf(logs.text()).map((l) => [l.level, l.attempts ?? null]);
    expect(told).toEqual([
      ['info', 1],
      ['warn', 2],
      ['info', null],
    ]);
    expect(asked).toBe(3);
  });
});
