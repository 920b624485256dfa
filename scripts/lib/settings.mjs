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
  return {
    adminUrl: env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: env.MARKET_DB_NAME ?? 'market',
    rolePassword: (service) => {
      if (passwords[service]) return passwords[service];
      if (production) throw new Error(`MARKET_DB_ROLE_PASSWORDS has no password for ${service}`);
      return `dev-${service}-password`;
    },
  };
}
