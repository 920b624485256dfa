// An open-loop load at a steady rate: request i is due at start + i / rate, whether or not earlier
// ones have been answered, and its latency is counted from when it was due (a client that cannot
// send on time counts that wait too, so a stall is not hidden by sending less).
//
// autocannon's `overallRate` is not that: each connection sends its share of a second as fast as it
// can at the start of the second and then waits for the next one, so "1,000 req/s over 100
// connections" is a burst of 1,000 requests at saturation every second, and its coordinated-omission
// correction then adds made-up samples for every millisecond a response took. Percentiles from it
// describe the burst, not a steady 1,000 req/s.
//
// The load runs in a process of its own (this module, forked), not in the bench script's. The bench
// script holds what it seeded, autocannon's results and, with traces on, the spans it receives; on
// this 2-core VM its garbage collections ran V8's helper threads on both cores for 20–30 ms at a
// time, every few hundred ms, and every process of the system waited for them (`perf sched
// timehist`: the gateway runnable but not running). The p99 at 1,000 req/s measured those pauses.
// A process that only sends has a small heap and short collections, and its requests go through an
// undici pool, whose per-request cost is a fraction of node:http's client.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { quantile } from './quantile.mjs';

/**
 * Sends GET `url` at `rate` requests per second for `seconds` over keep-alive connections (as many
 * as the answers in flight need, up to `maxConnections`), from a process of its own. Returns counts
 * and latency percentiles in milliseconds; `leadIn`, the requests sent before the counted ones.
 *
 * The same load runs uncounted for `leadInSeconds` first, on the same connections: a client starting
 * cold opens a connection for each of its first requests in flight, and on this VM those first
 * ~25 ms of answers (a few dozen requests, 6–21 ms each) were half of a 5 s run's worst 1 %. They
 * measured the client's start, not the steady state the figure names.
 */
export function steadyLoad(options) {
  return new Promise((resolve, reject) => {
    // Its collections on its own thread (the system's processes keep the other core), and rare: a
    // young generation large enough that a 20 s run scavenges a handful of times.
    const execArgv = ['--single-threaded-gc', '--max-semi-space-size=64'];
    const child = fork(fileURLToPath(import.meta.url), [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result;
    child.once('message', (message) => (result = message));
    child.once('error', reject);
    child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the steady load's process exited with ${code} and no result`))));
    child.send(options);
  });
}

async function runLoad({ url, headers = {}, rate, seconds, leadInSeconds = 1, maxConnections = 256 }) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: maxConnections });
  const path = `${target.pathname}${target.search}`;
  const interval = 1000 / rate;
  const request = (onAnswer) => {
    pool.request({ method: 'GET', path, headers }).then(
      async ({ statusCode, body }) => {
        try {
          await body.dump();
          onAnswer(statusCode >= 200 && statusCode < 400);
        } catch {
          onAnswer(false);
        }
      },
      () => onAnswer(false),
    );
  };

  const leadIn = Math.round(rate * leadInSeconds);
  await paced(leadIn, interval, () => request(() => undefined));

  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  let ok = 0;
  let failed = 0;
  let settled = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const start = await paced(total, interval, (dueAt) =>
    request((answered) => {
      latencies[settled] = performance.now() - dueAt;
      if (answered) ok += 1;
      else failed += 1;
      settled += 1;
      if (settled === total) done();
    }),
  );
  await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  await pool.destroy();
  const sorted = Array.from(latencies.subarray(0, settled)).sort((a, b) => a - b);
  const at = (q) => Number(quantile(sorted, q).toFixed(1));
  return {
    total,
    leadIn,
    ok,
    failed: failed + (total - settled),
    rate: Math.round(settled / ((performance.now() - start) / 1000)),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
  };
}

/**
 * Calls `fire(dueAt)` for `count` requests, request i due at start + i × `interval` ms, sending late
 * ones at once; resolves with the start once the last is sent.
 */
async function paced(count, interval, fire) {
  const start = performance.now();
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < count && start + sent * interval <= now) {
        fire(start + sent * interval);
        sent += 1;
      }
      if (sent < count) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
      else resolve();
    };
    tick();
  });
  return start;
}

// forked by steadyLoad: one load, its result sent back, then exit
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', async (options) => {
    process.send(await runLoad(options), () => process.exit(0));
  });
}
