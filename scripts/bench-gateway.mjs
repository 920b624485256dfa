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
import { createPrivateKey, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { provisionDatabase, serviceDatabaseUrl, serviceEntry } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';
import { steadyLoad } from './lib/steady-load.mjs';
import { cpuSeconds, systemSeconds } from './lib/process-cpu.mjs';

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
const fixedRate = Number(process.env.BENCH_RATE ?? 1000);
const service = shared.ownerOf(benchPath);
if (!service) throw new Error(`no service owns ${benchPath}`);

const settings = { ...loadLaunchSettings(process.env), database: process.env.MARKET_DB_NAME ?? 'market_bench' };
await provisionDatabase(settings);

const gatewayPort = 28080;
const servicePort = gatewayPort + serviceEntry(service).portOffset;
const nodeEnv = process.env.BENCH_NODE_ENV ?? process.env.NODE_ENV ?? 'development';
// Production refuses the published development secrets; a bench run makes up its own.
const productionSecrets =
  nodeEnv !== 'development'
    ? {
        ...Object.fromEntries(
          ['USER_TOKEN_SECRET', 'ADMIN_TOKEN_SECRET'].map((k) => [k, randomBytes(32).toString('hex')]),
        ),
        DATA_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
        OPEN_UPLOAD_TOKEN: randomBytes(32).toString('hex'),
      }
    : {};
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

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}
await waitFor(`http://127.0.0.1:${servicePort}/healthz`);
await waitFor(`http://127.0.0.1:${gatewayPort}/healthz`);

const gatewayKey = { issuer: 'gateway', ...shared.internalKeyEnv(keys, 'gateway') };
const signing = { issuer: 'gateway', kid: gatewayKey.INTERNAL_SIGNING_KEY_ID, key: createPrivateKey({ key: JSON.parse(gatewayKey.INTERNAL_SIGNING_KEY), format: 'jwk' }) };
/** The gateway's assertion for the bench's request, made afresh for each round: an assertion lives 30 s. */
const directHeaders = async () => ({
  [shared.ASSERTION_HEADER]: await shared.signAssertion({ kind: 'anonymous', ip: '127.0.0.1' }, signing, { audience: service, method: 'GET', path: benchPath.split('?')[0] }),
});

/** At saturation (autocannon), or at a steady `rate`. */
async function measure(label, url, headers, rate) {
  const probe = await fetch(url, { headers });
  if (!probe.ok) throw new Error(`${label}: ${url} answered ${probe.status}`);
  const pids = [serviceProcess.pid, gatewayProcess.pid];
  const before = pids.map(cpuSeconds);
  const beforeSystem = pids.map(systemSeconds);
  const result = rate
    ? await steadyLoad({ url, headers, rate, seconds })
    : await autocannon({ url, headers, connections, duration: seconds });
  const after = pids.map(cpuSeconds);
  const afterSystem = pids.map(systemSeconds);
  const requests = rate ? result.total : result.requests.total;
  const perRequest = (i) => Math.round(((after[i] - before[i]) * 1e6) / requests);
  const systemPerRequest = (i) => Math.round(((afterSystem[i] - beforeSystem[i]) * 1e6) / requests);
  return {
    target: label,
    'req/s': rate ? result.rate : Math.round(result.requests.average),
    'p50 ms': rate ? result.p50 : result.latency.p50,
    'p99 ms': rate ? result.p99 : result.latency.p99,
    'service CPU µs/req': perRequest(0),
    'gateway CPU µs/req': perRequest(1),
    'of which kernel (svc/gw)': `${systemPerRequest(0)}/${systemPerRequest(1)}`,
    failed: rate ? result.failed : result.non2xx + result.errors,
  };
}

const directUrl = `http://127.0.0.1:${servicePort}${benchPath}`;
const gatewayUrl = `http://127.0.0.1:${gatewayPort}${benchPath}`;
// Warm both paths up first, so the JIT has settled before anything is counted.
await autocannon({ url: directUrl, headers: await directHeaders(), connections, duration: 4 });
await autocannon({ url: gatewayUrl, connections, duration: 4 });
const directRuns = [];
const gatewayRuns = [];
for (let round = 0; round < rounds; round++) {
  directRuns.push(await measure(`${service} direct`, directUrl, await directHeaders()));
  gatewayRuns.push(await measure('through gateway', gatewayUrl, {}));
}
const median = (runs) => [...runs].sort((a, b) => a['req/s'] - b['req/s'])[Math.floor(runs.length / 2)];
const direct = median(directRuns);
const viaGateway = median(gatewayRuns);
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
console.log(`rounds req/s: direct ${directRuns.map((r) => r['req/s']).join(', ')}; gateway ${gatewayRuns.map((r) => r['req/s']).join(', ')}`);
console.table([direct, viaGateway, ...fixed]);
console.log(`gateway/direct throughput ratio: ${(viaGateway['req/s'] / direct['req/s']).toFixed(2)}`);
stopAll();
process.exit(0);
