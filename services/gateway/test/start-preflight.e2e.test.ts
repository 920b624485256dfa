import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { resolveInfra } from '@market/shared/testing';
import { freePort } from '@market/testkit';

const root = path.resolve(__dirname, '../../..');

/** A TCP server that accepts and never says a word: a dependency that is stalled rather than down. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function launch(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: { ...process.env, LOG_FORMAT: 'pretty', PORT: '18280', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output, ms: Date.now() - started });
    }),
  );
}

describe('npm start checks Postgres, RabbitMQ and Redis before starting anything', () => {
  // How soon it answers is the checks' own deadline (2.5 s each, in parallel), which the output names for a stalled one;
  // the wall-clock bound only tells a hang from an answer, since a loaded machine starts Node slowly.
  it('names each unreachable one by its deadline, with the address tried and how to start it, and starts nothing', async () => {
    const infra = await resolveInfra();
    const stalled = await silentServer();
    const refused = await freePort();
    try {
      const { code, output, ms } = await launch({
        DATABASE_ADMIN_URL: `postgres://postgres@127.0.0.1:${refused}/postgres`,
        AMQP_URL: `amqp://guest:guest@127.0.0.1:${stalled.port}`,
        REDIS_URL: infra.REDIS_URL,
      });
      expect(code).toBe(1);
      expect(ms).toBeLessThan(15_000);
      expect(output).toContain(`RabbitMQ cannot be reached at 127.0.0.1:${stalled.port} (AMQP_URL; connect: no answer within 2.5 s)`);
      expect(output).toContain(`PostgreSQL cannot be reached at 127.0.0.1:${refused} (DATABASE_ADMIN_URL`);
      expect(output).toContain('sudo service postgresql start');
      expect(output).toContain(`RabbitMQ cannot be reached at 127.0.0.1:${stalled.port} (AMQP_URL`);
      expect(output).toContain('sudo service rabbitmq-server start');
      expect(output).not.toContain('Redis cannot be reached');
      expect(output).toContain('nothing was started');
      // one line per missing dependency (plus the Docker hint where Docker exists) and the verdict: no flood
      expect(output.trim().split('\n').length).toBeLessThanOrEqual(4);
      expect(output).not.toMatch(/listening|provision/);
    } finally {
      await stalled.close();
    }
  }, 30_000);

  it('names Redis when it is the one missing', async () => {
    const infra = await resolveInfra();
    const refused = await freePort();
    const admin = new URL(infra.DATABASE_URL);
    admin.pathname = '/postgres';
    const { code, output, ms } = await launch({
      DATABASE_ADMIN_URL: admin.toString(),
      AMQP_URL: infra.AMQP_URL,
      REDIS_URL: `redis://127.0.0.1:${refused}`,
      // Postgres and RabbitMQ are up, and must be found up: on a loaded CI machine both once took
      // longer than the default 2.5 s to accept a connection.
      START_CHECK_DEADLINE_MS: '10000',
    });
    expect(code).toBe(1);
    expect(ms).toBeLessThan(15_000);
    expect(output).toContain(`Redis cannot be reached at 127.0.0.1:${refused} (REDIS_URL`);
    expect(output).toContain('sudo service redis-server start');
    expect(output).not.toMatch(/PostgreSQL cannot|RabbitMQ cannot/);
  }, 30_000);

  it('npm start checks before it builds anything', async () => {
    const infra = await resolveInfra();
    const refused = await freePort();
    const started = Date.now();
    const child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...process.env, AMQP_URL: infra.AMQP_URL, REDIS_URL: `redis://127.0.0.1:${refused}`, PORT: '18281' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    // a hang guard, not a speed claim: the check's own deadline is what the first test proves
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(output).toContain(`Redis cannot be reached at 127.0.0.1:${refused} (REDIS_URL`);
    expect(output).not.toMatch(/turbo|Tasks:/);
  }, 30_000);
});
