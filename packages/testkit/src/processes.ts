import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServiceName } from '@market/contracts';
import { queueNames } from '@market/shared/events';
import { dropBusObjects, dropSchemas, isAlive, serviceEnv, uniqueName } from '@market/shared/testing';

const root = path.resolve(__dirname, '../../..');

/** Where test processes reserve the ports they chose, one file per port holding the chooser's pid. */
export const PORT_RESERVATIONS = path.join(tmpdir(), 'market-test-ports');
const reserved = new Set<string>();

/**
 * Reserves `port` for this process until it exits, against every other test process on the machine:
 * a file created only if absent, or taken over from a process that has ended.
 */
function reserve(port: number): boolean {
  mkdirSync(PORT_RESERVATIONS, { recursive: true });
  const file = path.join(PORT_RESERVATIONS, String(port));
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      if (reserved.size === 0) process.once('exit', () => reserved.forEach((f) => rmSync(f, { force: true })));
      reserved.add(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder === process.pid || (holder > 0 && isAlive(holder))) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

/**
 * A port free right now on 127.0.0.1, below the kernel's ephemeral range: a port in that range can
 * be taken by any outgoing connection on the machine between our choosing it and a service binding
 * it. It is reserved for this process (a file per port), so no other test worker chooses it while
 * this one starts something on it a while later (a stack first, then a service process behind a
 * proxy). Services started another way may still take it, so starts retry on EADDRINUSE (startStack).
 */
export async function freePort(taken: ReadonlySet<number> = new Set()): Promise<number> {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const low = 20_000;
  const high = Math.max(low + 1_000, ephemeralLow ?? 32_768);
  for (;;) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (!taken.has(port) && (await canListen(port)) && reserve(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  const server: Server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface ServiceProcess {
  url: string;
  /** its database schema, for a test that locks one of its tables */
  schema: string;
  /** starts the built service (again), on the same port and schema, and waits until it is ready */
  start(): Promise<void>;
  /** `kill -9`: no shutdown, open transactions and connections simply end */
  kill(): Promise<void>;
  /** stops it if running and drops its schema and queues */
  stop(): Promise<void>;
  output(): string;
}

/**
 * One service run from its build (`services/<name>/dist/main.js`) as a child process, as production
 * runs it, with its own schema, on the stack's exchange and Redis prefix: for tests that kill a
 * service for real. `env` is the stack's environment (`stack.env`); the port is chosen up front so a
 * stack can be told the service's URL before it starts (StackOptions.external).
 */
export function serviceProcess(name: ServiceName, port: number, env: () => NodeJS.ProcessEnv): ServiceProcess {
  const schema = uniqueName(`t_${name}`);
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let log = '';
  let exchange = '';
  return {
    url,
    schema,
    output: () => log,
    async start() {
      const childEnv: NodeJS.ProcessEnv = {
        ...serviceEnv(env(), name),
        DB_SCHEMA: schema,
        PORT: String(port),
        HOST: '127.0.0.1',
      };
      exchange = String(childEnv.EVENTS_EXCHANGE);
      const started = spawn(process.execPath, [path.join(root, `services/${name}/dist/main.js`)], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      started.stdout!.on('data', (chunk) => (log += chunk));
      started.stderr!.on('data', (chunk) => (log += chunk));
      child = started;
      const deadline = Date.now() + 30_000;
      for (;;) {
        if (started.exitCode !== null) throw new Error(`${name} exited while starting:\n${log.slice(-3000)}`);
        const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
        if (ready) return;
        if (Date.now() > deadline) throw new Error(`${name} did not get ready:\n${log.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
      child = null;
    },
    async stop() {
      await this.kill();
      const { DATABASE_URL, AMQP_URL } = env();
      await dropBusObjects(String(AMQP_URL), exchange, Object.values(queueNames(name, exchange)));
      await dropSchemas(String(DATABASE_URL), [schema]);
    },
  };
}

export type ProxyMode = 'pass' | 'hold' | 'cut';

export interface TcpProxy {
  url: string;
  port: number;
  /**
   * `pass` forwards both ways; `hold` forwards requests but keeps every answer back (a server
   * that does the work and never answers in time) until the mode changes; `cut` refuses new
   * connections and ends the open ones, dropping any answers held back (they are lost).
   */
  setMode(mode: ProxyMode): void;
  /** bytes seen from clients so far, as text (to tell which requests went through) */
  requests(): string;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of one port on 127.0.0.1, to stall or cut a service from a test. The target
 * may be given as a function, for a service that gets its port only after the proxy must exist.
 */
export async function tcpProxy(target: number | (() => number), port?: number): Promise<TcpProxy> {
  const targetPort = typeof target === 'number' ? () => target : target;
  let mode: ProxyMode = 'pass';
  let seen = '';
  const open = new Set<Socket>();
  const held: Array<() => void> = [];
  const server = createServer((client) => {
    if (mode === 'cut') return void client.destroy();
    const upstream = connect(targetPort(), '127.0.0.1');
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'hold') held.push(() => client.writable && client.write(chunk));
      else client.write(chunk);
    });
    client.on('close', end);
    upstream.on('close', () => (mode === 'hold' ? held.push(end) : end()));
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(port ?? 0, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    setMode(next) {
      mode = next;
      if (next === 'cut') {
        held.splice(0);
        for (const socket of open) socket.destroy();
      }
      if (next !== 'hold') held.splice(0).forEach((release) => release());
    },
    requests: () => seen,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
