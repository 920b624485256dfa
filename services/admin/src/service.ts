import { defineService, periodicJob } from '@market/shared';
import { Argon2Passwords } from './adapters/argon2-passwords';
import type { AdminApp } from './application/admin-app';
import { bootstrapFirstAdmin } from './application/bootstrap-first-admin';
import { adminEnv, captchaMode, DEV_BOOTSTRAP_PASSWORD } from './config';
import { storeAuditEntry } from './events/store-audit-entry';
import { adminInternalRoutes } from './http/internal-routes';
import { adminRoutes } from './http/routes';
import { CaptchaStore } from './persistence/captcha-store';
import { forgetQuietLoginFailures } from './persistence/login-failures';
import { adminMigrations } from './persistence/migrations';

export const adminService = defineService({
  name: 'admin',
  env: adminEnv,
  entities: [],
  migrations: adminMigrations,
  build: async (ctx) => {
    const app: AdminApp = {
      db: ctx.db,
      events: ctx.events,
      log: ctx.log,
      config: ctx.config,
      captchaMode: captchaMode(ctx.config),
      captchas: new CaptchaStore(ctx.redis, ctx.redisKey),
      passwords: new Argon2Passwords(),
      revocations: ctx.revocations,
      internal: ctx.internal,
    };
    await announceBootstrap(app);
    return {
      routes: adminRoutes(app),
      internal: adminInternalRoutes(app),
      handlers: { 'audit.recorded': storeAuditEntry },
      jobs: [periodicJob('forget quiet login failures', 60 * 60_000, () => forgetQuietLoginFailures(ctx.db), ctx.log)],
    };
  },
});

async function announceBootstrap(app: AdminApp) {
  const username = app.config.ADMIN_BOOTSTRAP_USERNAME;
  const password = app.config.ADMIN_BOOTSTRAP_PASSWORD;
  const created = await bootstrapFirstAdmin(app, { username, password });
  if (!created) return;
  // Only the published development password is ever shown, and only in development, so a
  // developer can log in; a password someone chose stays out of every log.
  if (app.config.NODE_ENV === 'development' && password === DEV_BOOTSTRAP_PASSWORD) {
    app.log.info(`first admin created: username "${username}", development password "${password}"`);
  } else {
    app.log.info({ username }, 'first admin created from ADMIN_BOOTSTRAP_USERNAME');
  }
}
