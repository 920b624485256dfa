import { defineService } from '@market/shared/service';
import { inDevelopment } from '@market/shared/config';
import { Argon2Passwords } from './adapters/argon2-passwords';
import type { AdminDeps } from './application/deps';
import { bootstrapFirstAdmin } from './application/bootstrap-first-admin';
import { publishAdminSessions } from './application/publish-admin-sessions';
import { adminEnv, captchaMode, DEV_BOOTSTRAP_PASSWORD, passwordCost } from './config';
import { storeAuditEntries } from './events/store-audit-entries';
import { adminErrorStatuses } from './http/error-statuses';
import { adminInternalRoutes } from './http/internal-routes';
import { adminRoutes } from './http/routes';
import { forgetQuietLoginFailuresJob } from './jobs/forget-quiet-login-failures';
import { moneyVerification } from './jobs/money-verification';
import { auditHeadAnchor } from './jobs/audit-head-anchor';
import { CaptchaStore } from './persistence/captcha-store';
import { countAdmins } from './persistence/admin-users';
import { adminMigrations } from './persistence/migrations';

export const adminService = defineService({
  name: 'admin',
  env: adminEnv,
  entities: [],
  migrations: adminMigrations,
  errorStatuses: adminErrorStatuses,
  build: async (ctx) => {
    const deps: AdminDeps = {
      db: ctx.db,
      events: ctx.events,
      log: ctx.log,
      config: ctx.config,
      captchaMode: captchaMode(ctx.config),
      captchas: new CaptchaStore(ctx.redis, ctx.redisKey),
      passwords: new Argon2Passwords(passwordCost(ctx.config)),
      revocations: ctx.revocations,
      internal: ctx.internal,
    };
    await announceBootstrap(deps);
    await publishAdminSessions(deps);
    return {
      routes: adminRoutes(deps),
      internal: adminInternalRoutes(deps),
      // a batch's entries go to Postgres together: its chains' heads locked, then every row written
      handlers: { 'audit.recorded': { together: storeAuditEntries } },
      // an audit entry is a row and its chain's head, nothing outside the transaction
      batchEvents: true,
      jobs: [
        forgetQuietLoginFailuresJob(ctx.db, ctx.log),
        moneyVerification(deps, ctx.config.MONEY_VERIFY_INTERVAL_MS, ctx.log),
        auditHeadAnchor(deps, ctx.log),
      ],
      // the back office can be used only once an admin exists to log in
      readiness: async () => ({ first_admin: (await countAdmins(ctx.db)) > 0 }),
    };
  },
});

async function announceBootstrap(deps: AdminDeps) {
  const username = deps.config.ADMIN_BOOTSTRAP_USERNAME;
  const password = deps.config.ADMIN_BOOTSTRAP_PASSWORD;
  const created = await bootstrapFirstAdmin(deps, { username, password });
  if (!created) return;
  // Only the published development password is ever shown, and only in development, so a
  // developer can log in; a password someone chose stays out of every log.
  if (inDevelopment(deps.config) && password === DEV_BOOTSTRAP_PASSWORD) {
    deps.log.info(`first admin created: username "${username}", development password "${password}"`);
  } else {
    deps.log.info({ username }, 'first admin created from ADMIN_BOOTSTRAP_USERNAME');
  }
}
