#!/usr/bin/env node
// Every workspace's `npm test`: jest, bounded. A suite that hangs (a test that never settles, or
// jest kept alive after its run by an open server, pool or timer) becomes a failure in minutes
// instead of a silent wait until CI's own limit: past TEST_TIMEOUT_SECONDS, or 20 s after jest says
// it "did not exit", the run is killed, named, and run once more with --detectOpenHandles (bounded
// the same way) so the log shows what was left open. Arguments go to jest unchanged.
import { spawn } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const jestBin = require.resolve('jest/bin/jest');
const timeoutSeconds = Number(process.env.TEST_TIMEOUT_SECONDS ?? 600);
const exitGraceMs = Number(process.env.TEST_EXIT_GRACE_MS ?? 20_000);
const workspace = workspaceName(process.cwd());
// Names this run's pooled test vhosts (leaseTestBroker): its jest workers reuse them, and a later
// run deletes them once this process is gone. The simulators' key pairs of the run (testkit
// simulators/key-pairs.ts) are kept under this name too, and deleted here when the run ends.
const ownRun = !process.env.TEST_RUN;
const testRun = process.env.TEST_RUN ?? `${hostname().replace(/[^A-Za-z0-9.-]/g, '.')}-${process.pid}`;

function endRun(code) {
  if (ownRun) rmSync(path.join(tmpdir(), `market-simulator-keys-${testRun}.json`), { force: true });
  process.exit(code);
}
// What jest prints once its tests are done but something keeps the process alive (the second one
// under --detectOpenHandles, after listing the handles).
const LEFT_OPEN = ['Jest did not exit one second after the test run has completed', 'Jest has detected the following'];

function workspaceName(dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).name ?? dir;
  } catch {
    return dir;
  }
}

function say(message) {
  process.stderr.write(`[jest-bounded] ${message}\n`);
}

/**
 * Runs jest in its own process group; resolves with its exit code, or with `hung` when it had to be
 * killed. `prefix` marks every line of its output (the open-handles run is told apart from the run
 * whose results count).
 */
function runJest(args, prefix = '') {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [jestBin, ...args], {
      env: {
        ...process.env,
        // A larger young generation: a test file allocates heavily while it loads its modules, and
        // fewer scavenges promote less of that to the old generation (5 % less CPU per suite, ADR 0074).
        NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--max-semi-space-size=32'].filter(Boolean).join(' '),
        TEST_RUN: testRun,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let hung = null;
    const kill = (why) => {
      if (hung) return;
      hung = why;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill(`did not finish within ${timeoutSeconds} s`), timeoutSeconds * 1000);
    let exitTimer = null;
    for (const [source, sink] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let pending = '';
      source.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) {
          sink.write(`${prefix}${line}\n`);
          if (!exitTimer && LEFT_OPEN.some((text) => line.includes(text))) {
            exitTimer = setTimeout(() => kill(`finished its tests but did not exit within ${exitGraceMs / 1000} s`), exitGraceMs);
          }
        }
      });
      source.on('end', () => pending && sink.write(`${prefix}${pending}\n`));
    }
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(exitTimer);
      resolve({ code: code ?? (signal ? 1 : 0), hung });
    });
  });
}

const args = process.argv.slice(2);
const first = await runJest(args);
if (!first.hung) endRun(first.code);

say(`${workspace}: jest ${first.hung}: killed. Running it again with --detectOpenHandles to show what was left open.`);
const second = await runJest([...args, '--detectOpenHandles'], '[open-handles] ');
say(`${workspace}: the open-handles run ${second.hung ? `also ${second.hung}: killed` : `exited with ${second.code}`}. Failing: a test run must end by itself.`);
endRun(1);
