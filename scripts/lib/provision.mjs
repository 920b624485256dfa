import { createRequire } from 'node:module';
import pg from 'pg';

// The services come from the kit's registry (packages/contracts/src/services.ts); needs `npm run build`.
const { SERVICE_REGISTRY } = createRequire(import.meta.url)('../../packages/contracts/dist/index.js');

/** Service names in registry order. */
export const SERVICES = SERVICE_REGISTRY.map((s) => s.name);

/** The password of a service's broker user outside production (provision-broker.mjs sets it, start.mjs logs in with it). */
export function brokerDevPassword(service) {
  return `dev-${service}-amqp-password`;
}

/** Passwords given as `identity:…,catalog:…` (MARKET_AMQP_PASSWORDS, MARKET_REDIS_PASSWORDS). */
export function passwordList(text = '') {
  return Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)]),
  );
}

/** The broker users' passwords given as MARKET_AMQP_PASSWORDS (none outside production: the development ones). */
export function brokerPasswords(env) {
  return passwordList(env.MARKET_AMQP_PASSWORDS);
}

/** The password of a process's Redis user outside production (provision-redis.mjs sets it, start.mjs logs in with it). */
export function redisDevPassword(process) {
  return `dev-${process}-redis-password`;
}

/** A process's Redis URL: the admin URL's server, logged in as the process's own user (ADR 0054). */
export function processRedisUrl(adminUrl, process, password = redisDevPassword(process), userPrefix = 'market_') {
  const url = new URL(adminUrl);
  url.username = `${userPrefix}${process}`;
  url.password = password;
  return url.toString();
}

/** A service's AMQP URL: the admin URL's broker and vhost, logged in as the service's own user (ADR 0054). */
export function serviceAmqpUrl(adminUrl, service, password = brokerDevPassword(service), userPrefix = 'market_') {
  const url = new URL(adminUrl);
  url.username = `${userPrefix}${service}`;
  url.password = password;
  return url.toString();
}

/** A service's registry entry: port offset, schema, role. */
export function serviceEntry(service) {
  const entry = SERVICE_REGISTRY.find((s) => s.name === service);
  if (!entry) throw new Error(`unknown service ${service}`);
  return entry;
}

/** Extensions the services' migrations use, and which services use each (ADR 0020). */
const EXTENSIONS = { pg_trgm: ['catalog'] };

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

function ident(name) {
  if (!IDENT.test(name)) throw new Error(`unsafe identifier ${name}`);
  return `"${name}"`;
}

/**
 * Creates the database, and for each service a login role that owns its schema and nothing else,
 * so a service cannot read another's tables even by mistake (ADR 0003). Idempotent.
 */
export async function provisionDatabase({ adminUrl, database, rolePassword }) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${ident(database)}`);
    for (const { name: service, role } of SERVICE_REGISTRY) {
      const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      const password = rolePassword(service).replace(/'/g, "''");
      await admin.query(
        `${exists.rowCount ? 'ALTER' : 'CREATE'} ROLE ${ident(role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`,
      );
      await admin.query(`GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(role)}`);
    }
  } finally {
    await admin.end();
  }

  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await db.query('REVOKE ALL ON SCHEMA public FROM PUBLIC');
    for (const { schema, role } of SERVICE_REGISTRY) {
      await db.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)} AUTHORIZATION ${ident(role)}`);
      await db.query(`ALTER SCHEMA ${ident(schema)} OWNER TO ${ident(role)}`);
    }
    // Extensions need more than a service role may do; each lives wherever it was first created
    // (a schema of its own here), and the roles that index with it may use that schema and no more.
    for (const [extension, services] of Object.entries(EXTENSIONS)) {
      await db.query('CREATE SCHEMA IF NOT EXISTS extensions');
      await db.query(`CREATE EXTENSION IF NOT EXISTS ${ident(extension)} SCHEMA extensions`);
      const { rows } = await db.query(
        'SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1',
        [extension],
      );
      for (const service of services) await db.query(`GRANT USAGE ON SCHEMA ${ident(rows[0].nspname)} TO ${ident(`market_${service}`)}`);
    }
  } finally {
    await db.end();
  }
}

/** The connection URL of a service's own role, on the same server as the admin URL. */
export function serviceDatabaseUrl({ adminUrl, database, service, password }) {
  const url = new URL(adminUrl);
  url.username = serviceEntry(service).role;
  url.password = password;
  url.pathname = `/${database}`;
  return url.toString();
}
