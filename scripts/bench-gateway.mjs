#!/usr/bin/env node
// `npm run bench:gateway`: requests/s and latency of one cheap endpoint hit directly on its service
// and through the gateway, on this machine, in one run. Build first (`npm run build`).
// Env: BENCH_PATH (default the default screenshot), BENCH_SECONDS (10), BENCH_CONNECTIONS (50).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { provisionDatabase, serviceDatabaseUrl } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const shared = require(path.join(root, 'packages/shared/dist/index.js'));

const benchPath = process.env.BENCH_PATH ?? '/api/listings/default-upload-screenshot';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const service = shared.ownerOf(benchPath);
if (!service) throw new Error(`no service owns ${benchPath}`);

const settings = { ...loadLaunchSettings(process.env), database: process.env.MARKET_DB_NAME ?? 'market_bench' };
await provisionDatabase(settings);

const servicePort = 28000 + Object.keys(shared.DEFAULT_PORTS).indexOf(service);
const gatewayPort = 28080;
const quiet = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000' };
const children = [];
function start(script, env) {
  const child = spawn(process.execPath, [path.join(root, script)], {
    env: { ...process.env, ...quiet, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
}
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', stopAll);

start(`services/${service}/dist/main.js`, {
  PORT: String(servicePort),
  DB_SCHEMA: service,
  DATABASE_URL: serviceDatabaseUrl({ ...settings, service, password: settings.rolePassword(service) }),
});
start('services/gateway/dist/main.js', {
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
  await autocannon({ url, headers, connections, duration: 2 }); // warm-up
  const result = await autocannon({ url, headers, connections, duration: seconds });
  const row = {
    target: label,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  return row;
}

const direct = await measure(`${service} direct`, `http://127.0.0.1:${servicePort}${benchPath}`, {
  [shared.ASSERTION_HEADER]: assertion,
});
const viaGateway = await measure('through gateway', `http://127.0.0.1:${gatewayPort}${benchPath}`, {});
console.log(`\nGET ${benchPath}: ${connections} connections, ${seconds} s each, on ${(await import('node:os')).cpus().length} cores`);
console.table([direct, viaGateway]);
console.log(`gateway/direct throughput ratio: ${(viaGateway['req/s'] / direct['req/s']).toFixed(2)}`);
stopAll();
process.exit(0);
