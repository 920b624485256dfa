#!/usr/bin/env node
// `npm run bench:api` (after `npm run build`): the renter's read path on a whole stack run as
// `npm start` runs it (every service and the gateway, info logs, NODE_ENV as set). Seeds listings
// through the API (create, submit, approve), optionally bulk-inserts more with SQL, then for list,
// search, detail and GET /api/me prints: req/s at saturation through the gateway and directly on
// the service (alternating rounds, median shown), p50/p99 through the gateway at a steady rate (an
// open-loop load after an uncounted 1 s lead-in, scripts/lib/steady-load.mjs), CPU µs per request of the service and of the
// gateway at saturation and at the steady rate, and the gateway/direct ratio.
// Env: BENCH_LISTINGS (600, through the API), BENCH_FIXTURE_LISTINGS (0, extra online rows by SQL),
// BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50), BENCH_RATE (1000 req/s, the steady rate),
// BENCH_STEADY_SECONDS (20: the steady run's length; its p99 is the worst 1 % of rate × seconds answers,
// and over 5 s one 100 ms pause of the machine was enough to set it),
// BENCH_ONLY (comma-separated subset of list,search,detail,me), BENCH_NODE_ENV (development|production;
// production runs every process but identity and wallet so, since their production SMS provider and
// payment gateway cannot run here),
// BENCH_NODE_ARGS (node flags for the gateway and catalog, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
// GATEWAY_MICRO_CACHE_MS (the gateway's micro-cache of anonymous listing reads, ADR 0068; 250 ms unless set, 0 turns it off),
// BENCH_TRACES (1: every process traces as production does, exporting OTLP over HTTP to a sink
// that accepts and drops the spans, so the figures include what tracing costs at the default
// sampling, parentbased_traceidratio 0.01; OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG pass
// through; scripts/lib/trace-sink.mjs).
import { spawn } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { madeUpSecrets } from './lib/bench-secrets.mjs';
import { builtKit, requireBuilt, root } from './lib/built.mjs';
import { insertOnlineListings, listingBody } from './lib/listing-fixtures.mjs';
import { measureLoad, medianRun, waitUntilUp, warmUp } from './lib/load.mjs';
import { provisionDatabase, serviceDatabaseUrl, SERVICES } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';
import { benchTracing } from './lib/trace-sink.mjs';

const shared = builtKit();

const env = process.env;
const listingCount = Number(env.BENCH_LISTINGS ?? 600);
const fixtureCount = Number(env.BENCH_FIXTURE_LISTINGS ?? 0);
const seconds = Number(env.BENCH_SECONDS ?? 5);
const steadySeconds = Number(env.BENCH_STEADY_SECONDS ?? 20);
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const connections = Number(env.BENCH_CONNECTIONS ?? 50);
const fixedRate = Number(env.BENCH_RATE ?? 1000);
const only = env.BENCH_ONLY?.split(',').filter(Boolean);
const nodeEnv = env.BENCH_NODE_ENV ?? env.NODE_ENV ?? 'development';
// anything but development runs as production (ADR 0055)
const production = nodeEnv !== 'development';

const productionSecrets = production ? madeUpSecrets(['USER_TOKEN_SECRET', 'ADMIN_TOKEN_SECRET', 'SMS_CODE_SECRET']) : {};
// The first admin, who approves the seeded listings; admin runs in development (see below), so its
// captcha comes with its text.
const adminPassword = env.ADMIN_BOOTSTRAP_PASSWORD ?? requireBuilt('services/admin/dist/config.js').DEV_BOOTSTRAP_PASSWORD;
const tokenSecret = (name) => productionSecrets[name] ?? shared.tokenSecretShape[name].parse(undefined);

const settings = loadLaunchSettings({ ...env, NODE_ENV: 'development', MARKET_DB_NAME: env.MARKET_DB_NAME ?? 'market_bench_api' });
await provisionDatabase(settings);

const gatewayPort = 29080;
const servicePort = (service) => gatewayPort + 1 + SERVICES.indexOf(service);
const serviceUrls = Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, `http://127.0.0.1:${servicePort(s)}`]));
const tracing = await benchTracing(env);

const common = {
  ...tracing.env,
  ...serviceUrls,
  ...productionSecrets,
  NODE_ENV: nodeEnv,
  LOG_LEVEL: env.LOG_LEVEL ?? 'info',
  EVENTS_EXCHANGE: 'bench.api.events',
  REDIS_KEY_PREFIX: 'bench-api:',
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_SMS_PER_MINUTE: '1000',
  RATE_LIMIT_LOGIN_PER_MINUTE: '1000',
};
// Internal identity keys made for the run (ADR 0053): each process gets its own private key.
const keys = shared.generateInternalKeySet(`bench-${Date.now()}`);
const children = new Map();
function start(name, script, extra) {
  const profiled = name === 'gateway' || name === 'catalog';
  const nodeArgs = profiled ? (env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []) : [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, script)], {
    cwd: root,
    env: { ...env, ...common, ...shared.internalKeyEnv(keys, name), ...extra },
    // logs are written (their cost is part of a request) but not kept
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.set(name, child);
}
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));

for (const service of SERVICES) {
  start(service, `services/${service}/dist/main.js`, {
    // production identity needs a real SMS provider (and /api/me a logged-in user), production wallet
    // a real payment gateway, production admin a captcha solved by a person: they stay in development;
    // none is on the paths measured but /api/me
    ...(production && (service === 'identity' || service === 'wallet' || service === 'admin') ? { NODE_ENV: 'development' } : {}),
    PORT: String(servicePort(service)),
    DB_SCHEMA: service,
    DATABASE_URL: serviceDatabaseUrl({ ...settings, service, password: settings.rolePassword(service) }),
  });
}
start('gateway', 'services/gateway/dist/main.js', { PORT: String(gatewayPort), GATEWAY_METRICS_PORT: String(gatewayPort + 9) });

const gateway = `http://127.0.0.1:${gatewayPort}`;
// every service ready: the system's view on the gateway's metrics port (the public /readyz is the gateway's own)
await waitUntilUp(`http://127.0.0.1:${gatewayPort + 9}/system/readyz`, { tries: 600, what: 'the stack' });

async function call(method, url, body, token) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// Seeding: listings already there (an earlier run on the same database) count.
const catalogDb = new pg.Client({ connectionString: serviceDatabaseUrl({ ...settings, service: 'catalog', password: settings.rolePassword('catalog') }) });
await catalogDb.connect();
const countOnline = async () => Number((await catalogDb.query(`SELECT count(*) FROM catalog.listings WHERE status = 'online'`)).rows[0].count);
const existing = await countOnline();
const apiMissing = Math.max(0, listingCount - existing);
const seedStarted = Date.now();
// A real admin session: the gateway refuses admin tokens no login opened (ADR 0034).
async function adminToken() {
  const captcha = await call('GET', `${gateway}/api/admin/auth/captcha`);
  const login = await call('POST', `${gateway}/api/admin/auth/login`, {
    username: env.ADMIN_BOOTSTRAP_USERNAME ?? 'admin',
    password: adminPassword,
    captcha_id: captcha.captcha_id,
    captcha_code: captcha.dev_text,
  });
  return login.access_token;
}
const admin = apiMissing > 0 ? await adminToken() : null;
let next = 0;
async function seedWorker() {
  for (let i = next++; i < apiMissing; i = next++) {
    const owner = shared.signAccessToken('user', crypto.randomUUID(), crypto.randomUUID(), tokenSecret('USER_TOKEN_SECRET'), 3600).token;
    const created = await call('POST', `${gateway}/api/listings`, listingBody(existing + i), owner);
    await call('POST', `${gateway}/api/listings/${created.id}/submit-review`, {}, owner);
    await call('POST', `${gateway}/api/admin/listings/${created.id}/approve`, {}, admin);
  }
}
await Promise.all(Array.from({ length: 16 }, seedWorker));
if (apiMissing > 0) console.log(`seeded ${apiMissing} listings through the API in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

const online = await countOnline();
if (fixtureCount > 0 && online < listingCount + fixtureCount) {
  // The bulk rows look like API-made ones (same games, words, prices), newest-first interleaved.
  const missing = listingCount + fixtureCount - online;
  const started = Date.now();
  await insertOnlineListings(catalogDb, { table: 'catalog.listings', count: missing });
  console.log(`inserted ${missing} online listings by SQL in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const total = await countOnline();
const detailId = (await catalogDb.query(`SELECT id FROM catalog.listings WHERE status = 'online' ORDER BY created_at DESC LIMIT 1 OFFSET 10`)).rows[0].id;
await catalogDb.end();

// GET /api/me needs a user identity knows: log one in the way a client does.
const phone = `139${String(Date.now()).slice(-8)}`;
const sent = await call('POST', `${gateway}/api/auth/sms/send`, { phone });
const session = await call('POST', `${gateway}/api/auth/sms/login`, { phone, code: sent.dev_code });
const userToken = session.access_token;
const { sub: userSub, sid: userSid } = JSON.parse(Buffer.from(userToken.split('.')[1], 'base64url').toString());

const gatewayKey = shared.internalKeyEnv(keys, 'gateway');
const signing = { issuer: 'gateway', kid: gatewayKey.INTERNAL_SIGNING_KEY_ID, key: createPrivateKey({ key: JSON.parse(gatewayKey.INTERNAL_SIGNING_KEY), format: 'jwk' }) };
// Assertions are short-lived and made for one request: a fresh one for every run, as the gateway would send.
const assertionHeader = async (identity, service, path) => ({
  [shared.ASSERTION_HEADER]: await shared.signAssertion(identity, signing, { audience: service, method: 'GET', path: path.split('?')[0] }),
});
const anonymous = (target) => assertionHeader({ kind: 'anonymous', ip: '127.0.0.1' }, target.service, target.path);
const asUser = (target) => assertionHeader({ kind: 'user', sub: userSub, sid: userSid, ip: '127.0.0.1' }, target.service, target.path);

const targets = [
  { name: 'list', service: 'catalog', path: '/api/listings?limit=20', direct: anonymous },
  { name: 'search', service: 'catalog', path: `/api/listings?limit=20&game=${encodeURIComponent('王者荣耀')}&q=${encodeURIComponent('皮肤')}`, direct: anonymous },
  { name: 'detail', service: 'catalog', path: `/api/listings/${detailId}`, direct: anonymous },
  { name: 'me', service: 'identity', path: '/api/me', direct: asUser, headers: { authorization: `Bearer ${userToken}` } },
].filter((t) => !only || only.includes(t.name));

/**
 * At saturation, or at the steady `rate` (for `steadySeconds`), with the CPU of the target's service
 * and of the gateway. The direct headers are made afresh for each run (an assertion lives 30 s).
 */
async function run(target, url, headersOrMake, rate) {
  const headers = typeof headersOrMake === 'function' ? await headersOrMake(target) : headersOrMake;
  const pids = [children.get(target.service).pid, children.get('gateway').pid];
  return measureLoad({ label: target.name, url, headers, pids, seconds: rate ? steadySeconds : seconds, connections, rate });
}

const rows = [];
for (const target of targets) {
  const directUrl = `http://127.0.0.1:${servicePort(target.service)}${target.path}`;
  const gatewayUrl = gateway + target.path;
  // warm-up, so the JIT has settled before anything is counted
  await warmUp({ url: directUrl, headers: await target.direct(target), connections, seconds: 2 });
  await warmUp({ url: gatewayUrl, headers: target.headers, connections, seconds: 2 });
  const direct = [];
  const viaGateway = [];
  for (let round = 0; round < rounds; round++) {
    direct.push(await run(target, directUrl, target.direct));
    viaGateway.push(await run(target, gatewayUrl, target.headers));
  }
  const fixed = await run(target, gatewayUrl, target.headers, fixedRate);
  const d = medianRun(direct);
  const g = medianRun(viaGateway);
  rows.push({
    target: target.name,
    'gateway req/s': g.rps,
    'direct req/s': d.rps,
    'gw/direct': Number((g.rps / d.rps).toFixed(2)),
    [`p50 ms @${fixedRate}/s`]: fixed.p50,
    [`p99 ms @${fixedRate}/s`]: fixed.p99,
    'service µs/req': g.cpu[0],
    'gateway µs/req': g.cpu[1],
    'direct service µs/req': d.cpu[0],
    [`svc/gw µs/req @${fixedRate}/s`]: `${fixed.cpu[0]}/${fixed.cpu[1]}`,
    'rounds gw': viaGateway.map((r) => r.rps).join('/'),
    'rounds direct': direct.map((r) => r.rps).join('/'),
    failed: direct.concat(viaGateway, [fixed]).reduce((n, r) => n + r.failed, 0),
  });
}

console.log(
  `\n${total} online listings; node ${process.version}, NODE_ENV=${nodeEnv}, LOG_LEVEL=${common.LOG_LEVEL}, ` +
    `GATEWAY_MICRO_CACHE_MS=${env.GATEWAY_MICRO_CACHE_MS ?? '250 (the default)'}, ${tracing.describe()}; ${connections} connections, ` +
    `${rounds} alternating rounds of ${seconds} s (median shown), steady ${fixedRate} req/s through the gateway for ${steadySeconds} s; ` +
    `${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
);
console.table(rows);
stopAll();
process.exit(0);
