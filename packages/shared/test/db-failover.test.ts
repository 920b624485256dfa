import type { Server } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { DataSource } from 'typeorm';
import { defineRoute, z } from '@market/contracts';
import { createDataSource, initializeDataSource } from '../src/db';
import { route } from '../src/http';
import { assertionFor, dropSchemas, resolveInfra, uniqueName } from '../src/testing';
import { listenWithRoutes } from './test-app';

/**
 * A Postgres failover as the kit's pool lives through it (ADR 0064), without touching the shared
 * server: the server away for a while is a relay this file cuts and opens again; a server that
 * takes no writes (a standby, or the old primary a failover demoted, still behind the address) is
 * a role of this file's own whose sessions are read-only (`default_transaction_read_only`), which
 * refuses writes with the same SQLSTATE 25006. Every answer meanwhile is a 503 problem, never a
 * 500 and never a success that wrote nothing, and the pool recovers by itself.
 */

const Ok = z.object({ ok: z.boolean() });
const addPhone = (id: string, path: string) =>
  defineRoute({
    id,
    service: 'identity',
    method: 'post',
    path,
    auth: 'public',
    token: 'ignored',
    summary: id,
    tags: ['test'],
    body: z.object({ phone: z.string() }),
    success: { status: 200, description: 'done', schema: Ok },
    errors: [503],
  });
const addViaRelay = addPhone('testAddViaRelay', '/api/test/relayed-phones');
const addOnStandby = addPhone('testAddOnStandby', '/api/test/standby-phones');

/** A TCP relay to `host:port` that a test can cut (closed, its connections reset) and open again on the same port. */
function tcpRelay(host: string, port: number) {
  const sockets = new Set<Socket>();
  const relay = createServer((inbound) => {
    const outbound = connect(port, host);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  let listening = 0;
  return {
    open: () => new Promise<number>((resolve) => relay.listen(listening, '127.0.0.1', () => resolve((listening = (relay.address() as AddressInfo).port)))),
    cut: () => {
      relay.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('a Postgres failover as the kit lives through it', () => {
  const schema = uniqueName('t_failover');
  const standbyRole = uniqueName('t_standby');
  const standbySchema = uniqueName('t_standby');
  let databaseUrl: string;
  let admin: DataSource;
  let relayed: DataSource;
  let standby: DataSource;
  let pgRelay: ReturnType<typeof tcpRelay>;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    ({ DATABASE_URL: databaseUrl } = await resolveInfra());
    admin = createDataSource({ url: databaseUrl, schema, entities: [], migrations: [] });
    await initializeDataSource(admin, schema);
    await admin.query(`CREATE TABLE phones (phone text)`);

    const target = new URL(databaseUrl);
    pgRelay = tcpRelay(target.hostname, Number(target.port || 5432));
    const relayUrl = new URL(databaseUrl);
    relayUrl.hostname = '127.0.0.1';
    relayUrl.port = String(await pgRelay.open());
    relayed = createDataSource({ url: relayUrl.toString(), schema, entities: [], migrations: [], connectTimeoutMs: 500 });
    await relayed.initialize();

    await admin.query(`CREATE ROLE ${standbyRole} LOGIN`);
    await admin.query(`CREATE SCHEMA ${standbySchema} AUTHORIZATION ${standbyRole}`);
    const standbyUrl = new URL(databaseUrl);
    standbyUrl.username = standbyRole;
    standbyUrl.password = '';
    // one connection, so the one a test makes read-only is the one the next request gets
    standby = createDataSource({ url: standbyUrl.toString(), schema: standbySchema, entities: [], migrations: [], poolSize: 1 });
    await standby.initialize();
    await standby.query(`CREATE TABLE phones (phone text)`);

    ({ server, base } = await listenWithRoutes('identity', [
      route(addViaRelay, async ({ body }) => {
        await relayed.transaction((manager) => manager.query('INSERT INTO phones (phone) VALUES ($1)', [body.phone]));
        return { ok: true };
      }),
      route(addOnStandby, async ({ body }) => {
        await standby.transaction((manager) => manager.query('INSERT INTO phones (phone) VALUES ($1)', [body.phone]));
        return { ok: true };
      }),
    ]));
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    pgRelay?.cut();
    await Promise.all([relayed?.destroy().catch(() => undefined), standby?.destroy().catch(() => undefined)]);
    await admin.query(`DROP SCHEMA IF EXISTS ${standbySchema} CASCADE`);
    await admin.query(`DROP ROLE IF EXISTS ${standbyRole}`);
    await admin.destroy();
    await dropSchemas(databaseUrl, [schema]);
  });

  async function add(path: string) {
    const started = Date.now();
    const res = await fetch(base + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-internal-assertion': await assertionFor({ kind: 'anonymous', ip: null }, { service: 'identity', method: 'POST', path }),
      },
      body: JSON.stringify({ phone: uniqueName('p') }),
    });
    const json = (await res.json()) as { code?: string };
    return { status: res.status, code: json.code, ms: Date.now() - started };
  }

  it('answers 503 at once while Postgres is away, never 500, and the pool reconnects by itself when it is back', async () => {
    expect((await add('/api/test/relayed-phones')).status).toBe(200);
    pgRelay.cut();
    const away = [];
    for (let i = 0; i < 5; i++) away.push(await add('/api/test/relayed-phones'));
    expect(away.map(({ status, code }) => ({ status, code }))).toEqual(Array.from({ length: 5 }, () => ({ status: 503, code: 'UPSTREAM_UNAVAILABLE' })));
    expect(Math.max(...away.map((res) => res.ms))).toBeLessThan(1500);
    await pgRelay.open();
    expect((await add('/api/test/relayed-phones')).status).toBe(200);
  });

  it('takes no write a server refuses with SQLSTATE 25006 as done: 503, and a new connection once the address leads to a primary', async () => {
    const setReadOnly = (on: boolean) => admin.query(`ALTER ROLE ${standbyRole} ${on ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`);
    const rows = async () => Number((await admin.query(`SELECT count(*) AS n FROM ${standbySchema}.phones`))[0].n);
    expect((await add('/api/test/standby-phones')).status).toBe(200);

    // a failover demotes the server under the open connection: its writes are refused from then on
    await standby.query('SET SESSION default_transaction_read_only = on');
    await setReadOnly(true);
    expect(await add('/api/test/standby-phones')).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    // the address still leads to a server that takes no writes: its connections are refused at connect
    expect(await add('/api/test/standby-phones')).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(await rows()).toBe(1);

    // the address leads to the new primary: the next request writes, on a new connection
    await setReadOnly(false);
    expect((await add('/api/test/standby-phones')).status).toBe(200);
    expect(await rows()).toBe(2);
  });
});
