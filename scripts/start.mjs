#!/usr/bin/env node
// `npm start`: provisions the database, then runs every service and the gateway as child processes
// against the local Postgres, RabbitMQ and Redis, with interleaved logs. Ctrl-C stops everything.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { brokerPasswords, passwordList, processRedisUrl, provisionDatabase, serviceAmqpUrl, serviceDatabaseUrl, serviceEntry, SERVICES } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';
import { preflight } from './lib/preflight.mjs';
import { formatLogLine } from './lib/log-format.mjs';
import { describePaymentProviders } from './lib/payment-providers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { generateInternalKeySet, internalKeyEnv } = createRequire(import.meta.url)(path.join(root, 'packages/shared/dist/auth/index.js'));
// a local run: the development behaviours (published secrets, codes in responses, sandbox payments)
// are on only because NODE_ENV says development, so the launcher says it unless told otherwise
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'development' };
const settings = loadLaunchSettings(env);
const gatewayPort = Number(env.PORT ?? 8080);
const host = env.MARKET_HOST ?? '127.0.0.1';
const servicePort = (service) => gatewayPort + serviceEntry(service).portOffset;
const serviceUrls = Object.fromEntries(
  SERVICES.map((service) => [`${service.toUpperCase()}_URL`, `http://${host}:${servicePort(service)}`]),
);
const pretty = env.LOG_FORMAT ? env.LOG_FORMAT === 'pretty' : process.stdout.isTTY;
// Node flags for every child, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (NODE_OPTIONS refuses --cpu-prof).
const nodeArgs = env.MARKET_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

function launcherLog(message) {
  process.stdout.write(pretty ? `\x1b[1m[start]\x1b[0m ${message}\n` : `${JSON.stringify({ level: 'info', service: 'start', msg: message, time: new Date().toISOString() })}\n`);
}

const { amqpAdminUrl, redisAdminUrl } = settings;
const redisUrlOf = (process) => processRedisUrl(redisAdminUrl, process, passwordList(env.MARKET_REDIS_PASSWORDS)[process]);
const unreachable = await preflight(
  {
    DATABASE_ADMIN_URL: settings.adminUrl,
    AMQP_URL: amqpAdminUrl,
    REDIS_URL: redisAdminUrl,
  },
  settings.startCheckDeadlineMs,
);
if (unreachable.length > 0) {
  for (const line of unreachable) launcherLog(line);
  launcherLog('nothing was started');
  process.exit(1);
}

await provisionDatabase(settings).catch((err) => {
  launcherLog(`cannot provision the database at ${new URL(settings.adminUrl).host}: ${err.message}`);
  process.exit(1);
});
launcherLog(`database "${settings.database}" ready: one role and schema per service`);
for (const line of describePaymentProviders(env)) launcherLog(line);

// A fresh internal identity key pair per process and per run (ADR 0053): each child gets its own
// private key and everybody's public keys, so no process can sign as another.
const internalKeys = generateInternalKeySet(`run-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`);

// Each service's broker user is told as it is ready: provisioning takes a while (rabbitmqctl boots an
// Erlang VM per call), and a launcher that says nothing meanwhile looks stuck.
const brokerFailure = await new Promise((resolve) => {
  const child = spawn(process.execPath, [path.join(root, 'scripts/provision-broker.mjs')], {
    env: { ...env, AMQP_ADMIN_URL: amqpAdminUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => launcherLog(`broker: ${line}`));
  child.on('error', (err) => resolve(err.message));
  // the error's own line, not the Node.js version line an uncaught error ends with
  const reason = () => stderr.split('\n').filter((line) => line.trim() && !/^Node\.js v/.test(line)).pop();
  child.on('close', (code) => resolve(code === 0 ? null : (reason() ?? `exit code ${code}`)));
});
if (brokerFailure !== null) {
  launcherLog(`cannot provision the broker (rabbitmqctl must reach it; RABBITMQCTL names a wrapper): ${brokerFailure}`);
  process.exit(1);
}
launcherLog('broker ready: one exchange and one user per service');

try {
  execFileSync(process.execPath, [path.join(root, 'scripts/provision-redis.mjs')], {
    env: { ...env, REDIS_ADMIN_URL: redisAdminUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
} catch (err) {
  launcherLog(`cannot provision the Redis users: ${String(err.stderr ?? err.message).trim().split('\n').pop()}`);
  process.exit(1);
}
launcherLog('redis ready: one user per process');

const children = new Map();
let stopping = false;

function run(name, script, extraEnv) {
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, script)], {
    cwd: root,
    env: { ...env, ...serviceUrls, ...internalKeyEnv(internalKeys, name), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${formatLogLine(name, line, pretty)}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      // A clean exit is a stop (Ctrl-C reaches the children too); anything else is a crash.
      const clean = code === 0;
      launcherLog(`${name} ${clean ? 'stopped' : `exited (${signal ?? code})`}; stopping the system`);
      shutdown(clean ? 0 : 1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
  children.set(name, child);
}

function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  launcherLog('stopping…');
  for (const child of children.values()) child.kill('SIGTERM');
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(code);
  }, 10_000).unref();
  if (children.size === 0) process.exit(code);
}

process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

for (const service of SERVICES) {
  run(service, `services/${service}/dist/main.js`, {
    PORT: String(servicePort(service)),
    HOST: host,
    DB_SCHEMA: serviceEntry(service).schema,
    DATABASE_URL: serviceDatabaseUrl({ ...settings, service, password: settings.rolePassword(service) }),
    AMQP_URL: serviceAmqpUrl(amqpAdminUrl, service, brokerPasswords(env)[service]),
    REDIS_URL: redisUrlOf(service),
  });
}
const gatewayMetricsPort = env.GATEWAY_METRICS_PORT ?? String(gatewayPort + 9);
run('gateway', 'services/gateway/dist/main.js', {
  PORT: String(gatewayPort),
  REDIS_URL: redisUrlOf('gateway'),
  GATEWAY_METRICS_PORT: gatewayMetricsPort,
});

const started = Date.now();
const deadline = started + Number(env.START_TIMEOUT_MS ?? 60_000);
while (!stopping) {
  // the system's readiness, on the gateway's metrics port, names what is not ready yet: Redis, or a
  // service (its database, broker, Redis, own state); the public /readyz says only whether the
  // gateway itself can serve (ADR 0056)
  const readiness = await fetch(`http://127.0.0.1:${gatewayMetricsPort}/system/readyz`, { signal: AbortSignal.timeout(2000) })
    .then(async (r) => ({ ok: r.ok, checks: (await r.json()).checks ?? {} }))
    .catch(() => ({ ok: false, checks: { gateway: false } }));
  const ready = readiness.ok;
  if (ready) {
    launcherLog(`system ready in ${((Date.now() - started) / 1000).toFixed(1)} s: http://localhost:${gatewayPort} (API docs: /api/docs)`);
    break;
  }
  if (Date.now() > deadline) {
    const waiting = Object.entries(readiness.checks).filter(([, ok]) => !ok).map(([name]) => name);
    launcherLog(`the system did not become ready in time; not ready: ${waiting.join(', ') || 'unknown'} (see the logs above)`);
    shutdown(1);
    break;
  }
  await new Promise((r) => setTimeout(r, 300));
}
