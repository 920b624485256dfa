import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { uniqueName } from '@market/shared/testing';
import { eventually } from '@market/testkit';
import { LAUNCH_BOUND_MS, launchSystem, type LaunchedSystem } from './launcher';

/** The launcher behind `npm start`, run as a user would (./launcher). */
describe('the whole system started by the launcher', () => {
  const database = uniqueName('market_e2e');
  // Below the kernel's ephemeral range (32768–60999): a port in it can be taken at any moment as the
  // local end of some outgoing connection, and the launcher's services would fail to listen.
  const port = 18080;
  let system: LaunchedSystem;
  let launcher: ChildProcess;
  let adminUrl: string;
  const output = () => system.output();

  beforeAll(async () => {
    system = await launchSystem({ port, database, name: 'system' });
    launcher = system.process;
    adminUrl = system.adminUrl;
  }, LAUNCH_BOUND_MS + 30_000);

  afterAll(() => system?.stop(), 30_000);

  it('named nothing missing before starting, and printed that the system is ready', async () => {
    await eventually(async () => output().includes('system ready'), (printed) => printed);
    expect(output()).not.toContain('cannot be reached');
    expect(output()).not.toContain('redis unreachable');
  });

  it('is ready behind the gateway with every service reachable', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ status: 'ready', checks: { redis: true } });
    // the whole system's view, on the gateway's metrics port (PORT + 9 under npm start)
    const res = await fetch(`http://127.0.0.1:${port + 9}/system/readyz`);
    const body = (await res.json()) as { checks: Record<string, boolean> };
    expect(res.status).toBe(200);
    expect(Object.values(body.checks).every(Boolean)).toBe(true);
    expect(Object.keys(body.checks)).toEqual(
      expect.arrayContaining(['redis', 'identity', 'catalog', 'orders', 'wallet', 'files', 'notify', 'admin']),
    );
    const admin = await fetch(`http://127.0.0.1:${port + 7}/readyz`);
    expect(await admin.json()).toMatchObject({ status: 'ready', checks: { first_admin: true, database: true, broker: true, redis: true } });
  });

  it('created the first back-office admin, who can log in with the development password it printed', async () => {
    const messages = () =>
      output().split('\n').flatMap((line) => {
        try {
          return [(JSON.parse(line) as { msg?: string }).msg ?? ''];
        } catch {
          return [];
        }
      });
    // the admin's log line travels through its pipe and the launcher's; it may trail the readiness
    await eventually(
      async () => messages().some((msg) => msg.startsWith('first admin created: username "admin"')),
      (printed) => printed,
    );
    const base = `http://127.0.0.1:${port}`;
    const captcha = (await (await fetch(`${base}/api/admin/auth/captcha`)).json()) as { captcha_id: string; dev_text: string };
    const login = await fetch(`${base}/api/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'admin',
        password: 'dev-only-admin-password-0000',
        captcha_id: captcha.captcha_id,
        captcha_code: captcha.dev_text,
      }),
    });
    expect(login.status).toBe(200);
    const { access_token } = (await login.json()) as { access_token: string };
    const me = await fetch(`${base}/api/admin/me`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(((await me.json()) as { username: string }).username).toBe('admin');
  });

  it('gives each service a role that cannot touch another service schema', async () => {
    const url = new URL(adminUrl);
    url.username = 'market_catalog';
    url.password = 'dev-catalog-password';
    url.pathname = `/${database}`;
    const catalog = new Client({ connectionString: url.toString() });
    await catalog.connect();
    try {
      await expect(catalog.query('SELECT count(*) FROM catalog.outbox')).resolves.toBeDefined();
      await expect(catalog.query('SELECT count(*) FROM identity.outbox')).rejects.toThrow(/permission denied/);
      await expect(catalog.query('CREATE TABLE public.sneaky (id int)')).rejects.toThrow(/permission denied/);
    } finally {
      await catalog.end();
    }
  });

  it('stops every process on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    launcher.kill('SIGINT');
    expect(await exited).toBe(0);
    const down = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => 'up',
      () => 'down',
    );
    expect(down).toBe('down');
    for (let i = 1; i <= 7; i++) {
      const service = await fetch(`http://127.0.0.1:${port + i}/healthz`).then(
        () => 'up',
        () => 'down',
      );
      expect(service).toBe('down');
    }
  }, 20_000);
});
