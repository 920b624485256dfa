#!/usr/bin/env node
// `npm run bench:api` (after `npm run build`): the renter's read path on a whole stack run as
// `npm start` runs it (every service and the gateway, info logs, NODE_ENV as set). Seeds listings
// through the API (create, submit, approve), optionally bulk-inserts more with SQL, then for list,
// search, detail and GET /api/me prints: req/s at saturation through the gateway and directly on
// the service (alternating rounds, median shown), p50/p99 through the gateway at a steady rate (an
// open-loop load, scripts/lib/steady-load.mjs), CPU µs per request of the service and of the
// gateway at saturation and at the steady rate, and the gateway/direct ratio.
// Env: BENCH_LISTINGS (600, through the API), BENCH_FIXTURE_LISTINGS (0, extra online rows by SQL),
// BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50), BENCH_RATE (1000 req/s, the steady rate),
// BENCH_ONLY (comma-separated subset of list,search,detail,me), BENCH_NODE_ENV (development|production;
// production runs every process but identity and wallet so, since their production SMS provider and
// payment gateway cannot run here),
// BENCH_NODE_ARGS (node flags for the gateway and catalog, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
// GATEWAY_MICRO_CACHE_MS (the gateway's micro-cache of anonymous listing reads, ADR 0068; off unless set),
// BENCH_TRACES (1: every process traces as production does, exporting OTLP over HTTP to a sink in
// this script that accepts and drops the spans, so the figures include what tracing costs at the
// default sampling, parentbased_traceidratio 0.01;
// OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG pass through).
import { spawn } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import pg from 'pg';
import { provisionDatabase, serviceDatabaseUrl, SERVICES } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';
import { steadyLoad } from './lib/steady-load.mjs';
import { cpuSeconds } from './lib/process-cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const shared = {
  ...require(path.join(root, 'packages/contracts/dist/index.js')),
  ...require(path.join(root, 'packages/shared/dist/auth/index.js')),
  ...require(path.join(root, 'packages/shared/dist/config/index.js')),
};

const env = process.env;
const listingCount = Number(env.BENCH_LISTINGS ?? 600);
const fixtureCount = Number(env.BENCH_FIXTURE_LISTINGS ?? 0);
const seconds = Number(env.BENCH_SECONDS ?? 5);
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const connections = Number(env.BENCH_CONNECTIONS ?? 50);
const fixedRate = Number(env.BENCH_RATE ?? 1000);
const only = env.BENCH_ONLY?.split(',').filter(Boolean);
const nodeEnv = env.BENCH_NODE_ENV ?? env.NODE_ENV ?? 'development';
// anything but development runs as production (ADR 0055)
const production = nodeEnv !== 'development';

// Production refuses the published development secrets; a bench run makes up its own.
const productionSecrets = production
  ? Object.fromEntries(
      ['USER_TOKEN_SECRET', 'ADMIN_TOKEN_SECRET', 'SMS_CODE_SECRET'].map((k) => [
        k,
        randomBytes(32).toString('hex'),
      ]),
    )
  : {};
if (production) {
  productionSecrets.DATA_ENCRYPTION_KEYS = `bench:${randomBytes(32).toString('base64')}`;
  productionSecrets.OPEN_UPLOAD_TOKEN = randomBytes(32).toString('hex');
}
// The first admin, who approves the seeded listings; admin runs in development (see below), so its
// captcha comes with its text.
const adminPassword = env.ADMIN_BOOTSTRAP_PASSWORD ?? require(path.join(root, 'services/admin/dist/config.js')).DEV_BOOTSTRAP_PASSWORD;
const tokenSecret = (name) => productionSecrets[name] ?? shared.tokenSecretShape[name].parse(undefined);

const settings = loadLaunchSettings({ ...env, NODE_ENV: 'development', MARKET_DB_NAME: env.MARKET_DB_NAME ?? 'market_bench_api' });
await provisionDatabase(settings);

const gatewayPort = 29080;
const servicePort = (service) => gatewayPort + 1 + SERVICES.indexOf(service);
const serviceUrls = Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, `http://127.0.0.1:${servicePort(s)}`]));
/** With BENCH_TRACES=1, where the processes send their spans: accepted, counted and dropped. */
let spansReceived = 0;
const traceSink = env.BENCH_TRACES === '1'
  ? await new Promise((resolve) => {
      const sink = http.createServer((req, res) => {
        req.on('data', () => undefined);
        req.on('end', () => {
          spansReceived += 1;
          res.writeHead(200, { 'content-type': 'application/x-protobuf' });
          res.end();
        });
      });
      sink.listen(0, '127.0.0.1', () => resolve(sink));
    })
  : null;
const tracing = traceSink
  ? { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${traceSink.address().port}` }
  : { OTEL_TRACES_EXPORTER: 'none' };

const common = {
  ...tracing,
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
for (let i = 0; ; i++) {
  if (await fetch(`http://127.0.0.1:${gatewayPort + 9}/system/readyz`).then((r) => r.ok, () => false)) break;
  if (i > 600) throw new Error('the stack did not become ready');
  await new Promise((r) => setTimeout(r, 100));
}

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

const GAMES = ['王者荣耀', '和平精英', '原神', 'League of Legends', '英雄联盟', '永劫无间'];
const WORDS = ['全英雄', '荣耀王者', '满级', '限定皮肤', 'ranked', 'rare skins', '高胜率', '典藏', 'mythic', '星元'];
const pick = (list, i) => list[i % list.length];
function listingBody(i) {
  return {
    title: `${pick(GAMES, i)} ${pick(WORDS, i * 7 + 3)} ${pick(WORDS, i * 3 + 1)} #${i}`,
    game: pick(GAMES, i),
    server: i % 2 ? '微信区' : 'QQ区',
    description: `${pick(WORDS, i * 5)} 皮肤 ${100 + (i % 300)}+，${pick(WORDS, i + 4)}，可长租`,
    hourly_price: 300 + ((i * 37) % 2000),
    min_hours: 1,
    max_hours: 24,
    deposit: 5000,
  };
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
  await catalogDb.query(
    `INSERT INTO catalog.listings (id, owner_id, title, game, server, description, hourly_price, min_hours, max_hours, deposit,
       status, review_status, created_at, updated_at)
     SELECT gen_random_uuid(), gen_random_uuid(),
       ($1::text[])[1 + n % 6] || ' ' || ($2::text[])[1 + (n * 7 + 3) % 10] || ' ' || ($2::text[])[1 + (n * 3 + 1) % 10] || ' #' || n,
       ($1::text[])[1 + n % 6], '微信区',
       ($2::text[])[1 + (n * 5) % 10] || ' 皮肤 ' || (100 + n % 300) || '+，' || ($2::text[])[1 + (n + 4) % 10] || '，可长租',
       300 + (n * 37) % 2000, 1, 24, 5000, 'online', 'approved',
       now() - make_interval(secs => n), now()
     FROM generate_series(1, $3::int) AS n`,
    [GAMES, WORDS, missing],
  );
  await catalogDb.query('ANALYZE catalog.listings');
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

async function run(target, url, headersOrMake, opts) {
  const headers = typeof headersOrMake === 'function' ? await headersOrMake(target) : headersOrMake;
  const pids = [children.get(target.service).pid, children.get('gateway').pid];
  const probe = await fetch(url, { headers });
  if (!probe.ok) throw new Error(`${target.name}: ${url} answered ${probe.status}`);
  const before = pids.map(cpuSeconds);
  const result = await autocannon({ url, headers, connections, duration: seconds, ...opts });
  const after = pids.map(cpuSeconds);
  const perRequest = (i) => Math.round(((after[i] - before[i]) * 1e6) / result.requests.total);
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    serviceCpu: perRequest(0),
    gatewayCpu: perRequest(1),
    bad: result.non2xx + result.errors + result.timeouts,
  };
}
/** The steady rate through the gateway, with the CPU both processes spent on it. */
async function steady(target, url, headers) {
  const pids = [children.get(target.service).pid, children.get('gateway').pid];
  const before = pids.map(cpuSeconds);
  const result = await steadyLoad({ url, headers, rate: fixedRate, seconds: Math.max(seconds, 5) });
  const after = pids.map(cpuSeconds);
  const perRequest = (i) => Math.round(((after[i] - before[i]) * 1e6) / result.total);
  return { ...result, serviceCpu: perRequest(0), gatewayCpu: perRequest(1), bad: result.failed };
}
const median = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

const rows = [];
for (const target of targets) {
  const directUrl = `http://127.0.0.1:${servicePort(target.service)}${target.path}`;
  const gatewayUrl = gateway + target.path;
  // warm-up, so the JIT has settled before anything is counted
  await autocannon({ url: directUrl, headers: await target.direct(target), connections, duration: 2 });
  await autocannon({ url: gatewayUrl, headers: target.headers, connections, duration: 2 });
  const direct = [];
  const viaGateway = [];
  for (let round = 0; round < rounds; round++) {
    direct.push(await run(target, directUrl, target.direct));
    viaGateway.push(await run(target, gatewayUrl, target.headers));
  }
  const fixed = await steady(target, gatewayUrl, target.headers);
  const d = median(direct);
  const g = median(viaGateway);
  rows.push({
    target: target.name,
    'gateway req/s': g.rps,
    'direct req/s': d.rps,
    'gw/direct': Number((g.rps / d.rps).toFixed(2)),
    [`p50 ms @${fixedRate}/s`]: fixed.p50,
    [`p99 ms @${fixedRate}/s`]: fixed.p99,
    'service µs/req': g.serviceCpu,
    'gateway µs/req': g.gatewayCpu,
    'direct service µs/req': d.serviceCpu,
    [`svc/gw µs/req @${fixedRate}/s`]: `${fixed.serviceCpu}/${fixed.gatewayCpu}`,
    'rounds gw': viaGateway.map((r) => r.rps).join('/'),
    'rounds direct': direct.map((r) => r.rps).join('/'),
    failed: direct.concat(viaGateway, [fixed]).reduce((n, r) => n + r.bad, 0),
  });
}

console.log(
  `\n${total} online listings; node ${process.version}, NODE_ENV=${nodeEnv}, LOG_LEVEL=${common.LOG_LEVEL}, ` +
    `GATEWAY_MICRO_CACHE_MS=${env.GATEWAY_MICRO_CACHE_MS ?? 0}, traces ${traceSink ? `on (${env.OTEL_TRACES_SAMPLER ?? 'the default sampler'}${env.OTEL_TRACES_SAMPLER_ARG ? ` ${env.OTEL_TRACES_SAMPLER_ARG}` : ''}; ${spansReceived} exports received)` : 'off'}; ${connections} connections, ` +
    `${rounds} alternating rounds of ${seconds} s (median shown), steady ${fixedRate} req/s through the gateway; ` +
    `${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
);
console.table(rows);
stopAll();
process.exit(0);
