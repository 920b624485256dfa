#!/usr/bin/env node
// `npm run bench:gateway`: requests/s and latency of one cheap endpoint hit directly on its service
// and through the gateway, on this machine, in one run. Build first (`npm run build`).
// The two are measured in alternating rounds (load on a shared 2-core machine drifts) and the
// median round of each is reported.
// Env: BENCH_PATH (default the default screenshot), BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
// BENCH_NODE_ARGS (node flags for the service and gateway, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { provisionDatabase, serviceDatabaseUrl, serviceEntry } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const shared = {
  ...require(path.join(root, 'packages/contracts/dist/index.js')),
  ...require(path.join(root, 'packages/shared/dist/auth/index.js')),
  ...require(path.join(root, 'packages/shared/dist/config/index.js')),
};

const benchPath = process.env.BENCH_PATH ?? '/api/listings/default-upload-screenshot';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const service = shared.ownerOf(benchPath);
if (!service) throw new Error(`no service owns ${benchPath}`);

const settings = { ...loadLaunchSettings(process.env), database: process.env.MARKET_DB_NAME ?? 'market_bench' };
await provisionDatabase(settings);

const gatewayPort = 28080;
const servicePort = gatewayPort + serviceEntry(service).portOffset;
const quiet = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000' };
const children = [];
const clockTicks = 100; // USER_HZ on Linux

/** CPU seconds a process has used so far (user + system), from /proc. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return NaN;
  }
}
function start(script, env) {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, script)], {
    env: { ...process.env, ...quiet, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', stopAll);

const serviceProcess = start(`services/${service}/dist/main.js`, {
  PORT: String(servicePort),
  DB_SCHEMA: serviceEntry(service).schema,
  DATABASE_URL: serviceDatabaseUrl({ ...settings, service, password: settings.rolePassword(service) }),
});
const gatewayProcess = start('services/gateway/dist/main.js', {
  PORT: String(gatewayPort),
  [`${service.toUpperCase()}_URL`]: `http://127.0.0.1:${servicePort}`,
});

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}
await waitFor(`http://127.0.0.1:${servicePort}/healthz`);
await waitFor(`http://127.0.0.1:${gatewayPort}/healthz`);

const assertion = shared.signAssertion({ kind: 'anonymous', ip: '127.0.0.1' }, shared.baseEnvShape.INTERNAL_ASSERTION_SECRET.parse(process.env.INTERNAL_ASSERTION_SECRET), 'gateway');

async function measure(label, url, headers) {
  const probe = await fetch(url, { headers });
  if (!probe.ok) throw new Error(`${label}: ${url} answered ${probe.status}`);
  const before = [cpuSeconds(serviceProcess.pid), cpuSeconds(gatewayProcess.pid)];
  const result = await autocannon({ url, headers, connections, duration: seconds });
  const after = [cpuSeconds(serviceProcess.pid), cpuSeconds(gatewayProcess.pid)];
  const perRequest = (i) => Math.round(((after[i] - before[i]) * 1e6) / result.requests.total);
  const row = {
    target: label,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'service CPU µs/req': perRequest(0),
    'gateway CPU µs/req': perRequest(1),
    non2xx: result.non2xx,
    errors: result.errors,
  };
  return row;
}

const directUrl = `http://127.0.0.1:${servicePort}${benchPath}`;
const gatewayUrl = `http://127.0.0.1:${gatewayPort}${benchPath}`;
// Warm both paths up first, so the JIT has settled before anything is counted.
await autocannon({ url: directUrl, headers: { [shared.ASSERTION_HEADER]: assertion }, connections, duration: 4 });
await autocannon({ url: gatewayUrl, connections, duration: 4 });
const directRuns = [];
const gatewayRuns = [];
for (let round = 0; round < rounds; round++) {
  directRuns.push(await measure(`${service} direct`, directUrl, { [shared.ASSERTION_HEADER]: assertion }));
  gatewayRuns.push(await measure('through gateway', gatewayUrl, {}));
}
const median = (runs) => [...runs].sort((a, b) => a['req/s'] - b['req/s'])[Math.floor(runs.length / 2)];
const direct = median(directRuns);
const viaGateway = median(gatewayRuns);
console.log(`\nGET ${benchPath}: ${connections} connections, ${rounds} alternating rounds of ${seconds} s, median round shown, on ${(await import('node:os')).cpus().length} cores`);
console.log(`rounds req/s: direct ${directRuns.map((r) => r['req/s']).join(', ')}; gateway ${gatewayRuns.map((r) => r['req/s']).join(', ')}`);
console.table([direct, viaGateway]);
console.log(`gateway/direct throughput ratio: ${(viaGateway['req/s'] / direct['req/s']).toFixed(2)}`);
stopAll();
process.exit(0);
