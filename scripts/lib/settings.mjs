/** Launcher settings from the environment, with development defaults. */
export function loadLaunchSettings(env) {
  // only development, said by name, runs on the made-up role passwords
  const production = env.NODE_ENV !== 'development';
  const passwords = Object.fromEntries(
    (env.MARKET_DB_ROLE_PASSWORDS ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split(':')),
  );
  // How long npm start gives Postgres, RabbitMQ and Redis each to answer its check: 2.5 s, or more
  // on a machine so loaded that a local Postgres takes longer to accept a connection (a CI machine once did).
  const startCheckDeadline = env.START_CHECK_DEADLINE_MS ?? '2500';
  if (!/^[1-9][0-9]*$/.test(startCheckDeadline)) throw new Error(`START_CHECK_DEADLINE_MS must be a whole number of milliseconds above 0, got "${startCheckDeadline}"`);
  return {
    adminUrl: env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    // AMQP_URL is the broker's admin: it provisions the topology and one user per service, and each
    // service logs in as its own user (ADR 0054).
    amqpAdminUrl: env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    // Likewise REDIS_URL: the operator's user provisions one restricted user per process.
    redisAdminUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    startCheckDeadlineMs: Number(startCheckDeadline),
    database: env.MARKET_DB_NAME ?? 'market',
    rolePassword: (service) => {
      if (passwords[service]) return passwords[service];
      if (production) throw new Error(`MARKET_DB_ROLE_PASSWORDS has no password for ${service}`);
      return `dev-${service}-password`;
    },
  };
}
