// How the bench scripts load a URL and read the figures: at saturation (autocannon) or at a steady
// rate (steady-load.mjs), with the CPU the processes serving it spent per request (/proc).
import autocannon from 'autocannon';
import { steadyLoad } from './steady-load.mjs';
import { cpuSeconds, systemSeconds } from './process-cpu.mjs';

/** Polls `url` until it answers 2xx, every 100 ms, `tries` times at the most. */
export async function waitUntilUp(url, { tries = 200, what = url } = {}) {
  for (let i = 0; i < tries; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

/** A load that is not counted, so the JIT has settled before anything is. */
export async function warmUp({ url, headers, connections, seconds }) {
  await autocannon({ url, headers, connections, duration: seconds });
}

/**
 * Loads GET `url` for `seconds`, at saturation over `connections` or, given a `rate`, at that steady
 * rate. `label` names the run in a refusal: the url is probed once first and must answer 2xx.
 * Returns req/s, p50 and p99 in ms, failed requests, and for each of `pids` the CPU µs per request
 * (`cpu`) and the kernel's part of it (`kernel`).
 */
export async function measureLoad({ label, url, headers, pids, seconds, connections, rate }) {
  const probe = await fetch(url, { headers });
  if (!probe.ok) throw new Error(`${label}: ${url} answered ${probe.status}`);
  const before = pids.map(cpuSeconds);
  const beforeKernel = pids.map(systemSeconds);
  const result = rate ? await steadyLoad({ url, headers, rate, seconds }) : await autocannon({ url, headers, connections, duration: seconds });
  const after = pids.map(cpuSeconds);
  const afterKernel = pids.map(systemSeconds);
  // the CPU read spans the steady load's uncounted lead-in too
  const requests = rate ? result.total + result.leadIn : result.requests.total;
  const perRequest = (a, b) => pids.map((_, i) => Math.round(((a[i] - b[i]) * 1e6) / requests));
  return {
    rps: rate ? result.rate : Math.round(result.requests.average),
    p50: rate ? result.p50 : result.latency.p50,
    p99: rate ? result.p99 : result.latency.p99,
    // autocannon's errors include its timeouts
    failed: rate ? result.failed : result.non2xx + result.errors,
    cpu: perRequest(after, before),
    kernel: perRequest(afterKernel, beforeKernel),
  };
}

/** The run of median req/s among rounds of the same load. */
export const medianRun = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
