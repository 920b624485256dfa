#!/usr/bin/env node
// `npm run bench:orders`: order throughput and event latency of the whole system on this machine, through
// the gateway like a client. Build first (`npm run build`).
// 1. Starts the system as `npm start` does, on its own ports, database, exchange and Redis prefix, so it
//    runs beside a development system (or, with `--attach`, uses one already running with the same settings).
// 2. Seeds through the API: owners with online listings (reviewed by the first admin), renters with
//    wallets funded through the sandbox payment gateway.
// 3. Warm-up, not counted: C other renters create, pay and complete orders, and the wallet settles
//    them, so that every path measured below has run and been compiled before it is measured.
//    Create + pay: each of C renters creates and pays orders on listings no one else orders, back to
//    back. Prints orders/s and p50/p99 of create, pay, create + pay.
// 4. Completion: every paid order is handed off, received, checked out and confirmed (C at a time), but
//    for the last few, completed one at a time afterwards.
// 5. Event latency: for each order, the outbox row of order.completed (orders schema, created_at is the
//    start of the confirming transaction) to the wallet's settlement entries for it (created_at when the
//    wallet's handler ran), both read from Postgres; split at the relay's claim (published_at); under
//    load (the concurrent completions), while completions flow at a steady rate (open loop: order i's
//    completion starts at i / rate seconds, whether or not earlier ones are done), and at rest (the
//    ones completed one at a time).
// CPU µs per order per process is read from /proc around the measured phases.
// Env: BENCH_CONCURRENCY (renters = owners = in-flight orders, 32), BENCH_ORDERS (measured orders, 600),
// BENCH_WARMUP (orders of the warm-up, 300), BENCH_QUIET_ORDERS (of those, completed one at a time at the end, 20),
// BENCH_FLOW_ORDERS (of those, completed at a steady BENCH_FLOW_RATE orders/s, 100 at 10), PORT (gateway,
// 9080; services take the next seven), MARKET_DB_NAME (market_bench_orders, dropped and recreated at each
// start), EVENTS_EXCHANGE (bench.events), REDIS_KEY_PREFIX (bench:), ADMIN_BOOTSTRAP_PASSWORD,
// MARKET_NODE_ARGS (node flags for every process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
// BENCH_TRACES (1: every process traces as production does, its spans exported to a sink that drops
// them, scripts/lib/trace-sink.mjs), BENCH_STATEMENTS (1: every process counts the SQL statements it sends, each a round trip, and the
// HTTP requests it serves and sends, and the bench prints them per order per service; 0 turns the
// counting off).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { loadLaunchSettings } from './lib/settings.mjs';
import { cpuSeconds } from './lib/process-cpu.mjs';
import { benchTracing } from './lib/trace-sink.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const attach = process.argv.includes('--attach');
const concurrency = Number(env.BENCH_CONCURRENCY ?? 32);
const measuredOrders = Number(env.BENCH_ORDERS ?? 600);
const warmupOrders = Number(env.BENCH_WARMUP ?? 300);
const quietOrders = Number(env.BENCH_QUIET_ORDERS ?? 20);
const flowOrders = Number(env.BENCH_FLOW_ORDERS ?? 100);
const flowRate = Number(env.BENCH_FLOW_RATE ?? 10);
const gatewayPort = Number(env.PORT ?? 9080);
const database = env.MARKET_DB_NAME ?? 'market_bench_orders';
const adminPassword = env.ADMIN_BOOTSTRAP_PASSWORD ?? 'bench-orders-admin-password';
const HOURLY_PRICE = 100;
const DEPOSIT = 500;
const ORDER_AMOUNT = HOURLY_PRICE + DEPOSIT; // one hour
const RECHARGE = 5_000_000; // the largest single recharge

const countStatements = env.BENCH_STATEMENTS !== '0' && !attach;
const statementsDir = countStatements ? mkdtempSync(path.join(os.tmpdir(), 'bench-orders-statements-')) : null;
if (statementsDir) process.on('exit', () => rmSync(statementsDir, { recursive: true, force: true }));
const settings = { ...loadLaunchSettings(env), database };
const dbUrl = new URL(settings.adminUrl);
dbUrl.pathname = `/${database}`;

const unlimited = '100000000';
const tracing = attach ? null : await benchTracing(env);
const launchEnv = {
  ...tracing?.env,
  PORT: String(gatewayPort),
  MARKET_DB_NAME: database,
  EVENTS_EXCHANGE: env.EVENTS_EXCHANGE ?? 'bench.events',
  REDIS_KEY_PREFIX: env.REDIS_KEY_PREFIX ?? 'bench:',
  ADMIN_BOOTSTRAP_PASSWORD: adminPassword,
  LOG_FORMAT: 'json',
  LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
  // Every bench user logs in from one address.
  RATE_LIMIT_PER_MINUTE: unlimited,
  RATE_LIMIT_SMS_PER_MINUTE: unlimited,
  RATE_LIMIT_LOGIN_PER_MINUTE: unlimited,
  SMS_DAILY_LIMIT_PER_IP: unlimited,
  // Every run registers ~100 users, and the hour's budget is kept in Redis across runs.
  SMS_HOURLY_BUDGET: unlimited,
  ...(statementsDir
    ? {
        BENCH_STATEMENTS_DIR: statementsDir,
        MARKET_NODE_ARGS: [env.MARKET_NODE_ARGS ?? '', `--require=${path.join(root, 'scripts/lib/count-statements.cjs')}`].join(' ').trim(),
      }
    : {}),
};

// ---------------------------------------------------------------- processes and their CPU


/** The launcher's children by name (`services/<name>/dist/main.js`). */
function systemProcesses(launcherPid) {
  const pids = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  const named = {};
  for (const pid of pids) {
    const match = /services\/([a-z]+)\/dist\/main\.js/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    if (match) named[match[1]] = Number(pid);
  }
  return named;
}

/** Postgres backends serving the bench database (the services' pools; stable during a phase). */
async function backendPids(db) {
  const rows = await db.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  return rows.rows.map((r) => r.pid);
}

/**
 * The shared servers' processes by what they are: Postgres's own (every postgres process but the
 * bench database's backends: the WAL writer, checkpointer, autovacuum…), RabbitMQ's Erlang VM and
 * Redis. Nothing else uses them during a phase, so what they spend is the bench's.
 */
const SERVERS = { 'postgres (the rest)': (comm) => comm === 'postgres', rabbitmq: (comm) => comm.startsWith('beam') || comm === 'erl_child_setup', redis: (comm) => comm === 'redis-server' };

function serverSnapshot(backends) {
  const snapshot = Object.fromEntries(Object.keys(SERVERS).map((name) => [name, {}]));
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    if (backends.has(Number(pid))) continue;
    let comm;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    const server = Object.entries(SERVERS).find(([, is]) => is(comm))?.[0];
    if (server) snapshot[server][pid] = cpuSeconds(pid);
  }
  return snapshot;
}

/** What each pid of `before` and `after` spent between them. */
const spentBetween = (before, after) => Object.keys(after).filter((pid) => pid in before).reduce((sum, pid) => sum + (after[pid] - before[pid]), 0);

async function cpuSnapshot(processes, db) {
  const snapshot = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const backends = await backendPids(db);
  snapshot.postgres = Object.fromEntries(backends.map((pid) => [pid, cpuSeconds(pid)]));
  snapshot.servers = serverSnapshot(new Set(backends));
  snapshot.client = process.cpuUsage();
  return snapshot;
}

/** What the system's processes of a per-order row spent together, in µs: every process but the bench client. */
const systemMicros = (row) => Object.entries(row).filter(([name]) => name !== 'bench client').reduce((sum, [, us]) => sum + us, 0);

/** The shared servers' CPU per order, and the system's figure with it. */
function serverCpuLine(row, before, after, count) {
  const servers = Object.fromEntries(
    Object.keys(SERVERS).map((name) => [name, Math.round((spentBetween(before.servers[name], after.servers[name]) * 1e6) / count)]),
  );
  const all = systemMicros(row) + Object.values(servers).reduce((sum, us) => sum + us, 0);
  const parts = Object.entries(servers).map(([name, us]) => `${name} ${us}`).join(', ');
  return `and the shared servers, µs per order: ${parts}; with them ${(all / 1000).toFixed(1)} ms per order`;
}

/** What the system's processes spent per order together, and the throughput the machine's cores would allow at that cost. */
function cpuCeiling(row, seconds, count) {
  const total = systemMicros(row);
  const share = (total * count) / 1e6 / seconds / cores;
  return [
    `system CPU ${(total / 1000).toFixed(1)} ms per order: at most ${Math.round((cores * 1e6) / total)} orders/s on ${cores} fully available cores; the run got ${(share * 100).toFixed(0)} % of them`,
    `host gauge: the bench client sends the same requests every run and spent ${row['bench client']} µs per order; the system spent ${(total / row['bench client']).toFixed(1)} times that (this ratio moves far less than the figures above when the host's speed does: compare it between runs)`,
  ].join('\n');
}

function cpuPerOrder(before, after, count) {
  const row = {};
  for (const name of Object.keys(before)) {
    if (name === 'postgres' || name === 'servers' || name === 'client') continue;
    row[name] = Math.round(((after[name] - before[name]) * 1e6) / count);
  }
  const pgSeconds = spentBetween(before.postgres, after.postgres);
  row['postgres (bench backends)'] = Math.round((pgSeconds * 1e6) / count);
  const client = process.cpuUsage(before.client);
  row['bench client'] = Math.round((client.user + client.system) / count);
  return row;
}

/** Each process's SQL statements so far by text, and HTTP requests served and sent (scripts/lib/count-statements.cjs answers SIGUSR2). */
async function statementSnapshot(processes) {
  const snapshot = {};
  for (const [name, pid] of Object.entries(processes)) {
    const file = path.join(statementsDir, `${pid}.json`);
    rmSync(file, { force: true });
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 20));
    snapshot[name] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { statements: {}, requests: { served: 0, sent: 0 } };
  }
  return snapshot;
}

/** Statements per order of each process between two snapshots: the total, and each text sent at least once in ten orders. */
function printStatementsPerOrder(label, before, after, count) {
  const totals = {};
  const lines = [];
  for (const name of Object.keys(after)) {
    let total = 0;
    for (const [text, n] of Object.entries(after[name].statements)) {
      const perOrder = (n - (before[name]?.statements[text] ?? 0)) / count;
      total += perOrder;
      if (perOrder >= 0.1) lines.push({ process: name, 'per order': Number(perOrder.toFixed(2)), statement: text });
    }
    if (total > 0) totals[name] = Number(total.toFixed(2));
  }
  const all = Object.values(totals).reduce((s, n) => s + n, 0);
  console.log(`SQL statements (round trips) per order, ${label}: ${all.toFixed(1)} in all`);
  console.table([totals]);
  console.table(lines.sort((a, b) => a.process.localeCompare(b.process) || b['per order'] - a['per order']));
  // every hop costs its handling on both sides: the requests are the other round trips of an order
  const hops = {};
  for (const name of Object.keys(after)) {
    const per = (key) => Number(((after[name].requests[key] - (before[name]?.requests[key] ?? 0)) / count).toFixed(2));
    hops[name] = { 'HTTP served': per('served'), 'HTTP sent': per('sent') };
  }
  console.log(`HTTP requests per order, ${label}, each process's served and sent (the bench client's requests are the gateway's served):`);
  console.table(hops);
}

let launcher = null;
/** What the system logged at warn and above, counted by service, level and message. */
const systemLog = new Map();
/** Lines after start-up saying a backing service went away (shared machine: other work may restart them). */
let interruptions = 0;
let systemReady = false;
function stopSystem() {
  if (!launcher || launcher.exitCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => launcher.once('exit', resolve));
  launcher.kill('SIGTERM');
  return Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
}
process.on('exit', () => launcher?.kill('SIGTERM'));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopSystem().then(() => process.exit(130)));

/** A fresh database each run: a crowded one from earlier runs would change the figures. */
async function recreateDatabase() {
  if (!/^market_bench/.test(database)) throw new Error(`refusing to drop ${database}: the bench only drops databases named market_bench…`);
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function startSystem() {
  await recreateDatabase();
  const storage = mkdtempSync(path.join(os.tmpdir(), 'bench-orders-files-'));
  process.on('exit', () => rmSync(storage, { recursive: true, force: true }));
  launcher = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: { ...env, ...launchEnv, FILES_STORAGE_DIR: storage },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  createInterface({ input: launcher.stdout }).on('line', (line) => {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = { level: 'warn', service: 'start', msg: line };
    }
    if (entry.level === 'info' || entry.level === 'debug' || entry.level === 'trace') return;
    const key = `${entry.service} ${entry.level}: ${entry.msg}${entry.status ? ` ${entry.status}` : ''}`;
    const lost = /connection lost|dependency unavailable|not connected/i.test(`${entry.msg} ${entry.err?.message ?? ''}`);
    if (systemReady && (lost || (entry.status === 503 && entry.path !== '/readyz'))) interruptions++;
    const seen = systemLog.get(key);
    systemLog.set(key, { n: (seen?.n ?? 0) + 1, example: seen?.example ?? line.slice(0, 400) });
  });
  launcher.on('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`the system stopped (exit ${code})`);
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (launcher.exitCode !== null) throw new Error('the system did not start; see its log above');
    // every service ready: the system's view on the gateway's metrics port, where npm start puts it
    const metricsPort = env.GATEWAY_METRICS_PORT ?? gatewayPort + 9;
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/system/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    if (ready) {
      systemReady = true;
      break;
    }
    if (Date.now() > deadline) throw new Error('the system was not ready within 120 s');
    await new Promise((r) => setTimeout(r, 300));
  }
  return systemProcesses(launcher.pid);
}

// ---------------------------------------------------------------- HTTP through the gateway

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function call(method, urlPath, body, token) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers = {};
  if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: gatewayPort, method, path: urlPath, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: kept as text for the error report
        }
        resolve({ status: res.statusCode, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A seeding request that must succeed; a 503 (a backing service paused on this shared machine) is retried for up to 30 s. */
async function must(expected, method, urlPath, body, token) {
  for (let attempt = 1; ; attempt++) {
    const res = await call(method, urlPath, body, token);
    if (res.status === expected) return res.body;
    if (res.status !== 503 || attempt === 30) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Runs `work(i)` for i in [0, count) with `width` in flight. */
async function inParallel(count, width, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async (_, worker) => {
      for (let i = next++; i < count; i = next++) await work(i, worker);
    }),
  );
}

async function user() {
  const phone = `137${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
  const sent = await must(200, 'POST', '/api/auth/sms/send', { phone });
  const login = await must(200, 'POST', '/api/auth/sms/login', { phone, code: sent.dev_code });
  return { id: login.user.id, token: login.access_token };
}

async function adminToken() {
  const captcha = await must(200, 'GET', '/api/admin/auth/captcha');
  const login = await must(200, 'POST', '/api/admin/auth/login', {
    username: env.ADMIN_BOOTSTRAP_USERNAME ?? 'admin',
    password: adminPassword,
    captcha_id: captcha.captcha_id,
    captcha_code: captcha.dev_text,
  });
  return login.access_token;
}

async function onlineListing(owner, admin, n) {
  const listing = await must(
    201,
    'POST',
    '/api/listings',
    { title: `bench account ${n}`, game: 'bench', hourly_price: HOURLY_PRICE, deposit: DEPOSIT, min_hours: 1, max_hours: 24 },
    owner.token,
  );
  await must(200, 'POST', `/api/listings/${listing.id}/submit-review`, {}, owner.token);
  await must(200, 'POST', `/api/admin/listings/${listing.id}/approve`, {}, admin);
  return { id: listing.id, owner };
}

async function fund(renter) {
  const payment = await must(201, 'POST', '/api/wallet/recharge/pay', { amount: RECHARGE, channel: 'alipay' }, renter.token);
  await must(200, 'POST', `/api/payments/sandbox/${payment.id}/complete`, { status: 'succeeded' });
  for (let i = 0; i < 100; i++) {
    if ((await must(200, 'GET', '/api/wallet/balance', undefined, renter.token)).available >= RECHARGE) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('a recharge was not credited within 10 s');
}

// ---------------------------------------------------------------- figures

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
function latencyRow(label, samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 10) / 10;
  return { step: label, n: sorted.length, 'p50 ms': round(percentile(sorted, 50)), 'p99 ms': round(percentile(sorted, 99)), 'max ms': round(sorted.at(-1) ?? NaN) };
}
const elapsedMs = (start) => Number(process.hrtime.bigint() - start) / 1e6;

class Failures {
  counts = new Map();
  record(step, res) {
    const key = `${step}: ${res.status} ${res.body?.code ?? ''}`.trim();
    const seen = this.counts.get(key);
    this.counts.set(key, { n: (seen?.n ?? 0) + 1, example: seen?.example ?? JSON.stringify(res.body).slice(0, 300) });
  }
  get total() {
    return [...this.counts.values()].reduce((s, v) => s + v.n, 0);
  }
  print() {
    for (const [key, { n, example }] of this.counts) console.log(`  ${n} × ${key} e.g. ${example}`);
  }
}

// ---------------------------------------------------------------- the run

const cores = os.cpus().length;
const load = os.loadavg().map((l) => l.toFixed(1)).join(', ');
const db = new pg.Client({ connectionString: dbUrl.toString() });
let processes = {};
try {
  const started = Date.now();
  if (!attach) processes = await startSystem();
  await db.connect();
  console.log(`system ${attach ? 'attached' : `started in ${((Date.now() - started) / 1000).toFixed(1)} s`} at http://127.0.0.1:${gatewayPort}, database ${database}`);

  const totalListings = warmupOrders + measuredOrders;
  const seeding = Date.now();
  const admin = await adminToken();
  const owners = [];
  const renters = [];
  const warmupRenters = [];
  await inParallel(concurrency * 3, concurrency, async (i) => {
    if (i % 3 === 0) owners.push(await user());
    else {
      const renter = await user();
      await fund(renter);
      (i % 3 === 1 ? renters : warmupRenters).push(renter);
    }
  });
  const affordable = (who) => who.length * Math.floor(RECHARGE / ORDER_AMOUNT);
  if (affordable(renters) < measuredOrders) throw new Error('BENCH_ORDERS is more than the renters can pay for');
  if (affordable(warmupRenters) < warmupOrders) throw new Error('BENCH_WARMUP is more than the warm-up renters can pay for');
  const listings = new Array(totalListings);
  await inParallel(totalListings, concurrency, async (i) => {
    listings[i] = await onlineListing(owners[i % owners.length], admin, i);
  });
  console.log(
    `seeded ${owners.length} owners, ${renters.length + warmupRenters.length} funded renters (${warmupRenters.length} for the warm-up) and ${totalListings} online listings in ${((Date.now() - seeding) / 1000).toFixed(1)} s`,
  );

  // create + pay: renter w takes the next listing no one has ordered
  const failures = new Failures();
  async function createAndPay(from, count, samples, by = renters) {
    const done = [];
    await inParallel(count, concurrency, async (i, worker) => {
      const renter = by[worker];
      const listing = listings[from + i];
      const t0 = process.hrtime.bigint();
      const created = await call('POST', '/api/orders', { listing_id: listing.id, hours: 1 }, renter.token);
      const createMs = elapsedMs(t0);
      if (created.status !== 201) return failures.record('create', created);
      const t1 = process.hrtime.bigint();
      const pay = await call('POST', `/api/orders/${created.body.id}/pay`, {}, renter.token);
      const payMs = elapsedMs(t1);
      if (pay.status !== 200) return failures.record('pay', pay);
      samples?.create.push(createMs);
      samples?.pay.push(payMs);
      samples?.both.push(elapsedMs(t0));
      done.push({ id: created.body.id, renter, owner: listing.owner, rent: created.body.rent });
    });
    return done;
  }
  // completion: handoff, confirm receipt, checkout, confirm
  const completion = { handoff: [], 'confirm-receive': [], checkout: [], 'checkout/confirm': [], all: [] };
  const completionFailures = new Failures();
  const steps = [
    ['handoff', 201, 'owner', { content: 'bench account / password' }],
    ['confirm-receive', 200, 'renter', {}],
    ['checkout', 200, 'renter', null],
    ['checkout/confirm', 200, 'owner', {}],
  ];
  /** Hands off, receives, checks out and confirms one order; whether all four were answered as expected. */
  async function completeOne(order, samples) {
    const start = process.hrtime.bigint();
    for (const [step, status, party, body] of steps) {
      const t = process.hrtime.bigint();
      const res = await call('POST', `/api/orders/${order.id}/${step}`, body ?? { consumption: order.rent }, order[party].token);
      if (res.status !== status) {
        completionFailures.record(step, res);
        return false;
      }
      samples?.[step].push(elapsedMs(t));
    }
    samples?.all.push(elapsedMs(start));
    return true;
  }
  async function complete(orders, width, samples) {
    const done = [];
    await inParallel(orders.length, width, async (i) => {
      if (await completeOne(orders[i], samples)) done.push(orders[i].id);
    });
    return done;
  }
  /** Completes `orders` at `rate` a second, open loop: order i starts at i / rate seconds; answers the completed and the rate held. */
  async function completeAtRate(orders, rate) {
    const done = [];
    const start = performance.now();
    await Promise.all(
      orders.map(async (order, i) => {
        const due = start + (i * 1000) / rate;
        if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        if (await completeOne(order, null)) done.push(order.id);
      }),
    );
    return { done, held: orders.length / ((performance.now() - start) / 1000) };
  }
  /** Waits until the wallet has settled `ids` (at most a minute); how many it settled. */
  async function settlement(ids) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM wallet.order_escrows WHERE status = 'settled' AND order_id = ANY($1::uuid[])`, [ids]);
      if (rows[0].n === ids.length || Date.now() > deadline) return rows[0].n;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  // Warm-up: every path measured below runs first, by other renters, so that the figures are the
  // processes' steady cost, not the JIT compiling code paths for the first time.
  const warmupStart = Date.now();
  const warmupPaid = await createAndPay(0, warmupOrders, null, warmupRenters);
  const warmupSettled = await settlement(await complete(warmupPaid, concurrency, null));
  if (warmupSettled !== warmupOrders) throw new Error(`the warm-up settled ${warmupSettled} of ${warmupOrders} orders`);
  console.log(`warm-up: ${warmupOrders} orders created, paid, completed and settled by the warm-up renters in ${((Date.now() - warmupStart) / 1000).toFixed(1)} s`);
  const samples = { create: [], pay: [], both: [] };
  const statementsBefore = statementsDir ? await statementSnapshot(processes) : null;
  const cpuBefore = await cpuSnapshot(processes, db);
  const t0 = process.hrtime.bigint();
  const paid = await createAndPay(warmupOrders, measuredOrders, samples);
  const seconds = elapsedMs(t0) / 1000;
  const cpuAfter = await cpuSnapshot(processes, db);
  const statementsAfter = statementsDir ? await statementSnapshot(processes) : null;
  const measured = samples.both.length;

  console.log(`\ncreate + pay: ${measured} orders by ${concurrency} concurrent renters on distinct listings (after the warm-up), on ${cores} cores, load average ${load} at start`);
  console.log(`throughput: ${(measured / seconds).toFixed(0)} orders/s (${seconds.toFixed(1)} s)`);
  console.table([latencyRow('create', samples.create), latencyRow('pay', samples.pay), latencyRow('create + pay', samples.both)]);
  if (!attach) {
    console.log('CPU µs per order (create + pay), per process:');
    const cpu = cpuPerOrder(cpuBefore, cpuAfter, measured);
    console.table([cpu]);
    console.log(cpuCeiling(cpu, seconds, measured));
    console.log(serverCpuLine(cpu, cpuBefore, cpuAfter, measured));
  }
  if (statementsBefore) printStatementsPerOrder('create + pay', statementsBefore, statementsAfter, measured);
  if (failures.total) {
    console.log(`${failures.total} failed:`);
    failures.print();
  }

  // completion: the last few orders are held back to be completed one at a time once the system is
  // quiet, for the event latency at rest
  const quiet = paid.splice(Math.max(0, paid.length - quietOrders));
  const flowing = paid.splice(Math.max(0, paid.length - flowOrders));
  /** Outbox write of order.completed → the wallet's settlement entries for the order, split at the relay's claim. */
  async function eventLatency(label, ids) {
    const settled = await settlement(ids);
    const { rows } = await db.query(
      `SELECT extract(epoch FROM (s.applied - o.created_at)) * 1000 AS total_ms,
              extract(epoch FROM (o.published_at - o.created_at)) * 1000 AS relay_ms,
              extract(epoch FROM (s.applied - o.published_at)) * 1000 AS consume_ms
         FROM orders.outbox o
         CROSS JOIN LATERAL (
           SELECT min(e.created_at) AS applied FROM wallet.entries e
            WHERE e.order_id = (o.payload -> 'data' ->> 'order_id')::uuid AND e.biz_type <> 'order_payment'
         ) s
        WHERE o.type = 'order.completed' AND s.applied IS NOT NULL AND (o.payload -> 'data' ->> 'order_id')::uuid = ANY($1::uuid[])`,
      [ids],
    );
    console.log(`
event latency ${label}, order.completed written to the outbox → settlement entries in the wallet: ${settled} of ${ids.length} settled`);
    console.table([
      latencyRow('outbox → settled', rows.map((r) => Number(r.total_ms))),
      latencyRow('outbox → relay claim', rows.map((r) => Number(r.relay_ms))),
      latencyRow('relay claim → settled', rows.map((r) => Number(r.consume_ms))),
    ]);
    return settled === ids.length;
  }

  const statementsBeforeCompletion = statementsDir ? await statementSnapshot(processes) : null;
  const cpuBeforeCompletion = await cpuSnapshot(processes, db);
  const tc = process.hrtime.bigint();
  const completed = await complete(paid, concurrency, completion);
  const completionSeconds = elapsedMs(tc) / 1000;
  await settlement(completed);
  const cpuAfterCompletion = await cpuSnapshot(processes, db);
  const statementsAfterCompletion = statementsDir ? await statementSnapshot(processes) : null;
  console.log(`\ncompletion: ${completed.length} orders handed off, received, checked out and confirmed, ${concurrency} at a time`);
  console.log(`throughput: ${(completed.length / completionSeconds).toFixed(0)} orders/s (${completionSeconds.toFixed(1)} s, 4 requests each)`);
  console.table(Object.entries(completion).map(([step, s]) => latencyRow(step === 'all' ? 'all four' : step, s)));
  if (!attach) {
    console.log('CPU µs per completed order (four moves and the settlement), per process:');
    const cpu = cpuPerOrder(cpuBeforeCompletion, cpuAfterCompletion, completed.length);
    console.table([cpu]);
    console.log(cpuCeiling(cpu, completionSeconds, completed.length));
    console.log(serverCpuLine(cpu, cpuBeforeCompletion, cpuAfterCompletion, completed.length));
  }
  if (statementsBeforeCompletion) printStatementsPerOrder('completion and settlement', statementsBeforeCompletion, statementsAfterCompletion, completed.length);
  const allSettled = await eventLatency(`under load (${concurrency} orders completing at a time)`, completed);
  let flowSettled = true;
  if (flowing.length) {
    const flow = await completeAtRate(flowing, flowRate);
    flowSettled = await eventLatency(
      `while ${flowRate} orders/s complete (${flowing.length} orders, open loop; ${flow.held.toFixed(1)} orders/s from the first start to the last answer)`,
      flow.done,
    );
  }
  const quietSettled = await eventLatency('at rest (one order completing at a time)', await complete(quiet, 1, null));
  if (completionFailures.total) {
    console.log(`${completionFailures.total} completions failed:`);
    completionFailures.print();
  }
  if (interruptions) console.log(`caution: ${interruptions} log lines say a backing service went away during the run (see below); the figures include that`);
  process.exitCode = allSettled && flowSettled && quietSettled && failures.total + completionFailures.total === 0 ? 0 : 1;
} catch (err) {
  console.error(err.stack ?? err);
  process.exitCode = 1;
} finally {
  await db.end().catch(() => undefined);
  agent.destroy();
  await stopSystem();
  if (tracing) {
    console.log(`\n${tracing.describe()}`);
    await tracing.close();
  }
  if (systemLog.size) {
    console.log('\nthe system logged (warn and above):');
    for (const [key, { n, example }] of systemLog) console.log(`  ${n} × ${key}\n      e.g. ${example}`);
  }
}
