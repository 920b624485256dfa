import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const fixture = path.join(__dirname, 'fixtures/hanging-suite');

function runBounded(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts/jest-bounded.mjs'), '--config', path.join(fixture, 'jest.config.js')], {
      cwd: fixture,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output, ms: Date.now() - started }));
  });
}

describe('the bounded jest runner every workspace tests with', () => {
  it('fails a suite that passes but never exits, within the grace, and shows what it left open', async () => {
    const { code, output, ms } = await runBounded({ TEST_EXIT_GRACE_MS: '2000', TEST_TIMEOUT_SECONDS: '60' });
    expect(code).toBe(1);
    expect(output).toContain('Tests:       1 passed, 1 total');
    expect(output).toMatch(/\[jest-bounded\] .*finished its tests but did not exit within 2 s: killed/);
    // The second run names the handle and where it was opened.
    expect(output).toMatch(/\[open-handles\] .*open handle/i);
    expect(output).toContain('leaves-a-server-open.spec.js');
    expect(ms).toBeLessThan(50_000);
  }, 90_000);

  it('fails a suite that is still running at the time limit', async () => {
    // A time limit shorter than the suite's run: the kill comes from the limit, not the exit watch.
    const { code, output } = await runBounded({ TEST_EXIT_GRACE_MS: '600000', TEST_TIMEOUT_SECONDS: '3' });
    expect(code).toBe(1);
    expect(output).toMatch(/\[jest-bounded\] .*did not finish within 3 s: killed/);
  }, 90_000);
});
