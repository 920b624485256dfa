import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventConsumers, SERVICE_NAMES } from '@market/contracts';
import { adminLoginToken, api, eventually, startStack, type Stack } from '@market/testkit';

const ADMIN = { username: 'broker_fault_ops', password: 'broker-fault-ops-password-1234' };
/** Kept short: every helper on this machine shares the broker. */
const OUTAGE_MS = 3000;
const SLOW_REQUEST_MS = 5000;

function rabbitmqctl(...args: string[]) {
  execFileSync('rabbitmqctl', args, { stdio: 'ignore', timeout: 60_000 });
}

async function brokerAnswers(timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      execFileSync('rabbitmq-diagnostics', ['-q', 'ping'], { stdio: 'ignore', timeout: 10_000 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * The broker stops and comes back while clients keep working, through the gateway: no service
 * dies, every request answers promptly (writes succeed because events wait in the outbox), and
 * every event written during the outage is delivered once the broker is back.
 */
describe('fault: the broker stops and restarts while requests run', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  const storageDir = mkdtempSync(path.join(tmpdir(), 'market-broker-fault-files-'));
  const failures: Array<{ kind: string; reason: unknown }> = [];
  const onRejection = (reason: unknown) => failures.push({ kind: 'unhandledRejection', reason });
  const onException = (reason: unknown) => failures.push({ kind: 'uncaughtException', reason });

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    stack = await startStack({
      services: [...SERVICE_NAMES],
      serviceEnv: {
        admin: { ADMIN_BOOTSTRAP_USERNAME: ADMIN.username, ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password },
        identity: { SMS_DAILY_LIMIT_PER_IP: '100000' },
        files: { FILES_STORAGE_DIR: storageDir },
      },
    });
    client = api(stack.url);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(storageDir, { recursive: true, force: true });
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  });

  /** What each service's own `/readyz` says about the broker, and whether it keeps the service in rotation (its status). */
  function readiness(): Promise<Array<{ status: number; broker: boolean }>> {
    return Promise.all(
      Object.values(stack.services).map(async (service) => {
        const res = await fetch(`${service!.url}/readyz`);
        const body = (await res.json()) as { checks: { broker: boolean } };
        return { status: res.status, broker: body.checks.broker };
      }),
    );
  }
  const brokerReadiness = async () => (await readiness()).map((service) => service.broker);

  /** One SMS login through the gateway: identity writes the user and an `auth.login` audit entry in one transaction. */
  async function smsLogin() {
    const phone = `139${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    const started = Date.now();
    const sent = await client.post('/api/auth/sms/send', { phone });
    const login = sent.status === 200 ? await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code }) : sent;
    return { status: login.status, code: login.body?.code as string | undefined, ms: Date.now() - started, userId: login.body?.user?.id as string | undefined };
  }

  it('every service consumes only what the contracts declare for it, so the declared topology binds everything it handles', () => {
    for (const name of SERVICE_NAMES) {
      expect(eventConsumers[name]).toEqual(expect.arrayContaining(stack.services[name]!.consumer.eventTypes));
    }
  });

  it('the first admin\'s audit entry, written before any consumer started on a fresh install, reaches the audit log', async () => {
    const token = await adminLoginToken(client, ADMIN.username, ADMIN.password);
    await eventually(
      async () => (await client.get('/api/admin/audit-logs?action=admin_user.bootstrap', token)).body.items?.length,
      (n) => n === 1,
      10_000,
    );
  });

  it('no process dies, every request answers within seconds, and every event written during the outage is delivered after it', async () => {
    const token = await adminLoginToken(client, ADMIN.username, ADMIN.password);
    const before = await smsLogin();
    expect(before.status).toBe(200);

    const during: Array<Awaited<ReturnType<typeof smsLogin>>> = [];
    try {
      rabbitmqctl('stop_app');
      await eventually(() => brokerReadiness(), (ready) => ready.every((r) => r === false), 10_000);
      // the broker is every replica's alike: reported, and every service stays in rotation (ADR 0070)
      expect((await readiness()).map((service) => service.status)).toEqual(Object.values(stack.services).map(() => 200));
      const outageEnds = Date.now() + OUTAGE_MS;
      while (Date.now() < outageEnds) {
        during.push(...(await Promise.all([smsLogin(), smsLogin(), smsLogin()])));
      }
    } finally {
      rabbitmqctl('start_app');
      await brokerAnswers();
    }

    expect(during.length).toBeGreaterThan(0);
    expect(during.filter((r) => r.status !== 200)).toEqual([]);
    expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(SLOW_REQUEST_MS);

    await eventually(() => brokerReadiness(), (ready) => ready.every((r) => r === true), 30_000);
    for (const { userId } of [before, ...during]) {
      await eventually(
        async () => (await client.get(`/api/admin/audit-logs?actor_id=${userId}&action=auth.login`, token)).body.items?.length,
        (n) => n === 1,
        30_000,
      );
    }
    for (const service of Object.values(stack.services)) {
      const [{ pending }] = await service!.ctx.db.query(`SELECT count(*)::int AS pending FROM outbox WHERE published_at IS NULL`);
      expect(pending).toBe(0);
    }
    const after = await smsLogin();
    expect(after.status).toBe(200);
    expect(failures).toEqual([]);
  }, 120_000);
});
