#!/usr/bin/env node
// `npm run bench:gateway`: requests/s and latency of one cheap endpoint hit directly on its service
// and through the gateway, on this machine, in one run. Build first (`npm run build`).
// The two are measured in alternating rounds (load on a shared 2-core machine drifts) and the
// median round of each is reported.
// Then both again at a steady rate (BENCH_RATE req/s, an open-loop load: scripts/lib/steady-load.mjs):
// CPU µs per request there does not depend on how many requests one wake-up of the event loop
// happens to batch at saturation, so it is the figure to compare between builds and Node versions.
// Env: BENCH_PATH (default the default screenshot), BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
// BENCH_RATE (1000; 0 skips the fixed-rate rounds), BENCH_NODE_ENV (development|production: NODE_ENV of
// both processes; production gets secrets made up for the run), BENCH_NODE_ARGS (node flags for the
// service and gateway, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). The processes run on the node
// that runs this script.
import { spawn } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import path from 'node:path';
import { madeUpSecrets } from './lib/bench-secrets.mjs';
import { builtKit, root } from './lib/built.mjs';
import { provisionDatabase, serviceDatabaseUrl, serviceEntry } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';
import { measureLoad, medianRun, waitUntilUp, warmUp } from './lib/load.mjs';

const shared = builtKit();

const benchPath = process.env.BENCH_PATH ?? '/api/listings/default-upload-screenshot';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const fixedRate = Number(process.env.BENCH_RATE ?? 1000);
const service = shared.ownerOf(benchPath);
if (!service) throw new Error(`no service owns ${benchPath}`);

const settings = { ...loadLaunchSettings(process.env), database: process.env.MARKET_DB_NAME ?? 'market_bench' };
await provisionDatabase(settings);

const gatewayPort = 28080;
const servicePort = gatewayPort + serviceEntry(service).portOffset;
const nodeEnv = process.env.BENCH_NODE_ENV ?? process.env.NODE_ENV ?? 'development';
const productionSecrets = nodeEnv !== 'development' ? madeUpSecrets(['USER_TOKEN_SECRET', 'ADMIN_TOKEN_SECRET']) : {};
// Internal identity keys made for the run (ADR 0053): each process gets its own private key.
const keys = shared.generateInternalKeySet(`bench-${Date.now()}`, [service, 'gateway']);
const quiet = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: nodeEnv, ...productionSecrets };
const children = [];
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
  ...shared.internalKeyEnv(keys, service),
  PORT: String(servicePort),
  DB_SCHEMA: serviceEntry(service).schema,
  DATABASE_URL: serviceDatabaseUrl({ ...settings, service, password: settings.rolePassword(service) }),
});
const gatewayProcess = start('services/gateway/dist/main.js', {
  ...shared.internalKeyEnv(keys, 'gateway'),
  PORT: String(gatewayPort),
  GATEWAY_METRICS_PORT: '0',
  [`${service.toUpperCase()}_URL`]: `http://127.0.0.1:${servicePort}`,
});

await waitUntilUp(`http://127.0.0.1:${servicePort}/healthz`);
await waitUntilUp(`http://127.0.0.1:${gatewayPort}/healthz`);

const gatewayKey = { issuer: 'gateway', ...shared.internalKeyEnv(keys, 'gateway') };
const signing = { issuer: 'gateway', kid: gatewayKey.INTERNAL_SIGNING_KEY_ID, key: createPrivateKey({ key: JSON.parse(gatewayKey.INTERNAL_SIGNING_KEY), format: 'jwk' }) };
/** The gateway's assertion for the bench's request, made afresh for each round: an assertion lives 30 s. */
const directHeaders = async () => ({
  [shared.ASSERTION_HEADER]: await shared.signAssertion({ kind: 'anonymous', ip: '127.0.0.1' }, signing, { audience: service, method: 'GET', path: benchPath.split('?')[0] }),
});

/** At saturation, or at a steady `rate`, with the CPU of the service and the gateway. */
const measure = async (label, url, headers, rate) => ({
  label,
  ...(await measureLoad({ label, url, headers, pids: [serviceProcess.pid, gatewayProcess.pid], seconds, connections, rate })),
});
const row = (run) => ({
  target: run.label,
  'req/s': run.rps,
  'p50 ms': run.p50,
  'p99 ms': run.p99,
  'service CPU µs/req': run.cpu[0],
  'gateway CPU µs/req': run.cpu[1],
  'of which kernel (svc/gw)': `${run.kernel[0]}/${run.kernel[1]}`,
  failed: run.failed,
});

const directUrl = `http://127.0.0.1:${servicePort}${benchPath}`;
const gatewayUrl = `http://127.0.0.1:${gatewayPort}${benchPath}`;
// Warm both paths up first, so the JIT has settled before anything is counted.
await warmUp({ url: directUrl, headers: await directHeaders(), connections, seconds: 4 });
await warmUp({ url: gatewayUrl, connections, seconds: 4 });
const directRuns = [];
const gatewayRuns = [];
for (let round = 0; round < rounds; round++) {
  directRuns.push(await measure(`${service} direct`, directUrl, await directHeaders()));
  gatewayRuns.push(await measure('through gateway', gatewayUrl, {}));
}
const direct = medianRun(directRuns);
const viaGateway = medianRun(gatewayRuns);
const fixed = [];
if (fixedRate > 0) {
  for (let round = 0; round < Math.min(rounds, 2); round++) {
    fixed.push(await measure(`${service} direct @${fixedRate}/s`, directUrl, await directHeaders(), fixedRate));
    fixed.push(await measure(`through gateway @${fixedRate}/s`, gatewayUrl, {}, fixedRate));
  }
}
const os = await import('node:os');
console.log(
  `\nGET ${benchPath}: node ${process.version}, NODE_ENV=${nodeEnv}, ${connections} connections, ` +
    `${rounds} alternating rounds of ${seconds} s, median round shown, on ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
);
console.log(`rounds req/s: direct ${directRuns.map((r) => r.rps).join(', ')}; gateway ${gatewayRuns.map((r) => r.rps).join(', ')}`);
console.table([direct, viaGateway, ...fixed].map(row));
console.log(`gateway/direct throughput ratio: ${(viaGateway.rps / direct.rps).toFixed(2)}`);
stopAll();
process.exit(0);
