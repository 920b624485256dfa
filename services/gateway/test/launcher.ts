import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { dropBusObjects, resolveInfra, uniqueName } from '@market/shared/testing';

const root = path.resolve(__dirname, '../../..');

export interface LaunchedSystem {
  /** the launcher process (`npm start`'s scripts/start.mjs) */
  process: ChildProcess;
  /** the maintenance database's URL of the test's Postgres */
  adminUrl: string;
  /** everything the launcher printed so far */
  output(): string;
  /** stops the launcher if it still runs and drops the system's database */
  stop(): Promise<void>;
}

/** Silence from the launcher after which its start is given up on. */
const STALL_MS = 60_000;
/** The longest a start may take however busy the machine; a test's beforeAll allows this plus its own work. */
export const LAUNCH_BOUND_MS = 240_000;

/**
 * The launcher behind `npm start`, run as a user would (built services as child processes, one
 * role and schema per service), on its own database, ports, exchange and Redis prefix; resolves once
 * the system's readiness on the gateway's metrics port (the gateway's `PORT` + 9, as `npm start`
 * sets it) is 200 — the state tests need, not a log line (every service ready, the admin service's
 * first admin included).
 */
export async function launchSystem(opts: { port: number; database: string; name: string; env?: Record<string, string> }): Promise<LaunchedSystem> {
  const infra = await resolveInfra();
  const url = new URL(infra.DATABASE_URL);
  url.pathname = '/postgres';
  const adminUrl = url.toString();
  let output = '';
  const exchange = uniqueName(`test.${opts.name}`);
  const launcher = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_ADMIN_URL: adminUrl,
      MARKET_DB_NAME: opts.database,
      AMQP_URL: infra.AMQP_URL,
      REDIS_URL: infra.REDIS_URL,
      PORT: String(opts.port),
      EVENTS_EXCHANGE: exchange,
      REDIS_KEY_PREFIX: `${uniqueName(opts.name)}:`,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      // the launcher's own deadline follows the test's: a loaded machine may need all of it
      START_TIMEOUT_MS: String(LAUNCH_BOUND_MS),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launcher.stdout!.on('data', (chunk) => (output += chunk));
  launcher.stderr!.on('data', (chunk) => (output += chunk));
  const system: LaunchedSystem = {
    process: launcher,
    adminUrl,
    output: () => output,
    async stop() {
      if (launcher.exitCode === null && launcher.signalCode === null) {
        const exited = new Promise((resolve) => launcher.once('exit', resolve));
        launcher.kill('SIGINT');
        await exited;
      }
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${opts.database}" WITH (FORCE)`);
      await client.end();
      // The launch provisions its exchange's quorum queues on the broker's default vhost: idle, each still costs the broker.
      await dropBusObjects(infra.AMQP_URL, String(opts.env?.EVENTS_EXCHANGE ?? exchange));
    },
  };
  const metricsPort = opts.env?.GATEWAY_METRICS_PORT ?? opts.port + 9;
  // A loaded machine (three suites beside this one) can take a minute or more to build the schemas
  // and start eight processes: the launcher is waited for as long as it makes progress (writes
  // output), and given up on only after STALL_MS of silence or at the outer bound.
  const started = Date.now();
  let lastOutput = output.length;
  let lastProgress = started;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/system/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return system;
    if (output.length !== lastOutput) {
      lastOutput = output.length;
      lastProgress = Date.now();
    }
    const stalled = Date.now() - lastProgress > STALL_MS;
    if (stalled || Date.now() - started > LAUNCH_BOUND_MS || launcher.exitCode !== null) {
      await system.stop();
      throw new Error(`system did not start (${stalled ? `no output for ${STALL_MS / 1000} s` : 'launcher ended or outer bound passed'}):\n${output.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
