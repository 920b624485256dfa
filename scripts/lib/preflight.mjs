// Before `npm start` launches anything: can Postgres, RabbitMQ and Redis be reached? Each is asked
// once, in parallel, with its own client and a short deadline, so the answer comes within seconds and
// names every one missing, the address tried and how to start it.
import { execFileSync } from 'node:child_process';
import { connect as amqpConnect } from 'amqplib';
import pg from 'pg';
import { createClient } from '@redis/client';

function hostOf(url) {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || { 'postgres:': 5432, 'postgresql:': 5432, 'amqp:': 5672, 'amqps:': 5671, 'redis:': 6379, 'rediss:': 6379 }[parsed.protocol]}`;
}

function within(ms, work, what) {
  let timer;
  const late = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer)).catch((err) => {
    throw new Error(`${what}: ${err.message || err.code || String(err)}`);
  });
}

async function checkPostgres(url, deadlineMs) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: deadlineMs });
  client.on('error', () => undefined);
  try {
    await within(deadlineMs, client.connect().then(() => client.query('SELECT 1')), 'connect');
  } finally {
    client.end().catch(() => undefined);
  }
}

async function checkRabbit(url, deadlineMs) {
  const connection = await within(deadlineMs, amqpConnect(url, { timeout: deadlineMs }), 'connect');
  connection.on('error', () => undefined);
  await connection.close().catch(() => undefined);
}

async function checkRedis(url, deadlineMs) {
  // No reconnection: one attempt, one answer, no error lines.
  const client = createClient({ url, socket: { connectTimeout: deadlineMs, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await within(deadlineMs, client.connect().then(() => client.ping()), 'connect');
  } finally {
    client.destroy?.();
  }
}

function hasDocker() {
  try {
    execFileSync('docker', ['compose', 'version'], { stdio: 'ignore', timeout: 2000 });
    return true;
  } catch {
    return false;
  }
}

const DEPENDENCIES = [
  { name: 'PostgreSQL', variable: 'DATABASE_ADMIN_URL', compose: 'postgres', debian: 'sudo apt-get install -y postgresql && sudo service postgresql start', check: checkPostgres },
  { name: 'RabbitMQ', variable: 'AMQP_URL', compose: 'rabbitmq', debian: 'sudo apt-get install -y rabbitmq-server && sudo service rabbitmq-server start', check: checkRabbit },
  { name: 'Redis', variable: 'REDIS_URL', compose: 'redis', debian: 'sudo apt-get install -y redis-server && sudo service redis-server start', check: checkRedis },
];

/**
 * Checks the three dependencies at the given URLs, each given `deadlineMs` to answer; answers the
 * lines to print for those that cannot be reached (empty when all answer).
 */
export async function preflight(urls, deadlineMs) {
  const results = await Promise.all(
    DEPENDENCIES.map(async (dep) => {
      const url = urls[dep.variable];
      try {
        await dep.check(url, deadlineMs);
        return null;
      } catch (err) {
        return { dep, address: hostOf(url), reason: err.message };
      }
    }),
  );
  const missing = results.filter(Boolean);
  if (missing.length === 0) return [];
  const docker = hasDocker();
  const lines = missing.map(({ dep, address, reason }) => `${dep.name} cannot be reached at ${address} (${dep.variable}; ${reason}). Start it: ${dep.debian}`);
  if (docker) lines.push(`or, with Docker: docker compose up -d ${missing.map(({ dep }) => dep.compose).join(' ')}`);
  return lines;
}
