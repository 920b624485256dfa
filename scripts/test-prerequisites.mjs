#!/usr/bin/env node
// The first step of `npm test`: is everything the tests use here? The tools some tests run (Chromium
// for the console's browser tests, Prometheus' promtool for the alert rules, docker-compose and
// kubectl for the deployment checks, rabbitmqctl and the broker's management API (each stack's broker users), CJK fonts for
// readable screenshots) and the three backing
// services (PostgreSQL with its `test` database, RabbitMQ, Redis). A missing Debian package is
// installed when this runs as root with apt; otherwise, and for whatever apt cannot bring, it stops
// within seconds naming each missing thing and the one command that brings it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { preflight } from './lib/preflight.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';

const say = (line) => process.stderr.write(`[test-prerequisites] ${line}\n`);
const env = process.env;

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

const CJK_FONTS = ['/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc'];

/** What the tests run, how to tell it is here, and the Debian package that brings it. */
const TOOLS = [
  { what: 'Chromium (the console browser tests)', present: () => existsSync(env.CHROMIUM_PATH ?? '/usr/bin/chromium'), debian: 'chromium' },
  { what: 'CJK fonts (readable Chinese screenshots)', present: () => CJK_FONTS.some((f) => existsSync(f)), debian: 'fonts-noto-cjk' },
  { what: 'promtool (alert rules check)', present: () => onPath('promtool'), debian: 'prometheus' },
  { what: 'docker-compose (compose file check)', present: () => onPath('docker-compose'), debian: 'docker-compose' },
  // the tests that drop a broker connection or stop the broker, and `npm start`'s provisioning, use it
  { what: 'rabbitmqctl (broker connection and fault tests)', present: () => (env.RABBITMQCTL ? true : onPath('rabbitmqctl')), debian: 'rabbitmq-server' },
  {
    what: 'kubectl with Kustomize 5 (Kubernetes manifest check)',
    present: () => onPath('kubectl'),
    // Debian's kubernetes-client (1.20) renders these overlays wrongly: kubectl comes from the Kubernetes apt repository.
    manual: 'install kubectl 1.27 or newer from the Kubernetes apt repository (pkgs.k8s.io): apt-get install -y kubectl',
  },
];

const missing = TOOLS.filter((tool) => !tool.present());
const packages = missing.filter((tool) => tool.debian).map((tool) => tool.debian);
const isRoot = process.getuid?.() === 0;
if (packages.length > 0 && isRoot && onPath('apt-get')) {
  say(`installing ${packages.join(' ')} (apt)`);
  const install = spawnSync(
    'sh',
    ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${packages.join(' ')}`],
    { stdio: 'inherit' },
  );
  if (install.status !== 0) say('apt-get failed; see above');
}

const problems = [];
for (const tool of TOOLS.filter((t) => !t.present())) {
  problems.push(`${tool.what} is missing: ${tool.debian ? `sudo apt-get install -y ${tool.debian}` : tool.manual}`);
}

const settings = loadLaunchSettings(env);
const urls = {
  DATABASE_URL: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  AMQP_URL: settings.amqpAdminUrl,
  REDIS_URL: settings.redisAdminUrl,
};
const adminUrl = new URL(urls.DATABASE_URL);
const testDatabase = adminUrl.pathname.slice(1) || 'test';
adminUrl.pathname = '/postgres';
const unreachable = await preflight(
  { DATABASE_ADMIN_URL: adminUrl.toString(), AMQP_URL: urls.AMQP_URL, REDIS_URL: urls.REDIS_URL },
  settings.startCheckDeadlineMs,
);
problems.push(...unreachable);

if (unreachable.length === 0) {
  // The tests' database is made here, once, rather than by every test file racing for it.
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [testDatabase]);
    if (found.rowCount === 0) {
      say(`creating the database ${testDatabase}`);
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(testDatabase)}`);
    }
    const { rows } = await admin.query('SHOW max_connections');
    // Three workspaces' suites run at once, each end-to-end file with a pool per service.
    if (Number(rows[0].max_connections) < 300) {
      say(
        `PostgreSQL allows ${rows[0].max_connections} connections; the suites running side by side can need 300: ` +
          `psql -U postgres -c "ALTER SYSTEM SET max_connections = 400" and restart PostgreSQL`,
      );
    }
  } catch (err) {
    problems.push(`the test database ${testDatabase} cannot be prepared: ${err.message}`);
  } finally {
    await admin.end();
  }
  await vacuumCatalog(urls.DATABASE_URL);
}

/**
 * Every test stack creates schemas full of tables and drops them again, so the system catalog of the
 * test database collects dead rows by the hundred thousand a run; where autovacuum is off (as on
 * some CI machines) nothing ever reclaims them and every later DDL and catalog lookup wades through
 * them. A plain VACUUM of the catalog (no exclusive lock, a few seconds) before each run does.
 */
async function vacuumCatalog(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'pg_catalog' AND c.relkind = 'r'`,
    );
    await client.query(`VACUUM ${rows.map((r) => r.name).join(', ')}`);
  } catch (err) {
    say(`the test database's catalog could not be vacuumed (${err.message}); runs may slow as it bloats`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

if (unreachable.length === 0) {
  // Each test stack makes its broker vhost and users through the management HTTP API (one request,
  // where a `rabbitmqctl` start costs seconds): the plugin is enabled here when it is not yet.
  const amqp = new URL(urls.AMQP_URL);
  const management = new URL(env.RABBITMQ_MANAGEMENT_URL ?? `http://${amqp.hostname}:15672`);
  const credentials = `${decodeURIComponent(management.username || amqp.username || 'guest')}:${decodeURIComponent(management.password || amqp.password || 'guest')}`;
  management.username = '';
  management.password = '';
  const answers = () =>
    fetch(new URL('/api/overview', management), {
      headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      signal: AbortSignal.timeout(3000),
    }).then((r) => r.ok, () => false);
  if (!(await answers()) && isRoot && onPath('rabbitmq-plugins')) {
    say('enabling the RabbitMQ management plugin (rabbitmq-plugins enable rabbitmq_management)');
    spawnSync('rabbitmq-plugins', ['enable', 'rabbitmq_management'], { stdio: 'inherit', timeout: 120_000 });
    for (let i = 0; i < 30 && !(await answers()); i++) await new Promise((r) => setTimeout(r, 1000));
  }
  if (!(await answers())) {
    problems.push(`the RabbitMQ management API does not answer at ${management.origin} (test stacks make their broker users with it): sudo rabbitmq-plugins enable rabbitmq_management`);
  }
}

if (problems.length > 0) {
  for (const line of problems) say(line);
  say('no test was run');
  process.exit(1);
}
say(`ready: ${TOOLS.length} tools, PostgreSQL (${testDatabase}), RabbitMQ with its management API, and Redis`);
