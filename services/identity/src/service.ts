import { resealLegacySecrets, SecretBox } from '@market/shared/crypto';
import { CreateOutboxAndInbox1763800000000 } from '@market/shared/events';
import { defineService } from '@market/shared/service';
import { createProviders } from './adapters/providers';
import type { IdentityDeps } from './application/deps';
import { identityEnv } from './config';
import { identityErrorStatuses } from './http/error-statuses';
import { identityInternalRoutes } from './http/internal-routes';
import { identityRouteBindings } from './http/routes';
import { purgeExpiredRefreshTokensJob } from './jobs/purge-expired-refresh-tokens';
import { restoreRevocationsJob } from './jobs/restore-revocations';
import { CalendarQuota } from './persistence/calendar-quota';
import { IDENTITY_SEALED_COLUMNS } from './persistence/realname-repository';
import { CreateIdentityTables1763900000000 } from './persistence/migrations/1763900000000-create-identity-tables';
import { RedisLocks } from './persistence/redis-lock';
import { SmsCodeStore } from './persistence/sms-code-store';

export const identityService = defineService({
  name: 'identity',
  env: identityEnv,
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, CreateIdentityTables1763900000000],
  errorStatuses: identityErrorStatuses,
  build: async (ctx) => {
    const { sms, verifier } = createProviders(ctx.config, ctx.log);
    const secrets = new SecretBox(ctx.config.DATA_ENCRYPTION_KEYS);
    await resealLegacySecrets(ctx.db, secrets, IDENTITY_SEALED_COLUMNS, ctx.log);
    const deps: IdentityDeps = {
      config: ctx.config,
      db: ctx.db,
      events: ctx.events,
      revocations: ctx.revocations,
      smsCodes: new SmsCodeStore(ctx.redis, ctx.redisKey, ctx.config.SMS_CODE_SECRET),
      quotas: new CalendarQuota(ctx.redis, ctx.redisKey),
      locks: new RedisLocks(ctx.redis, ctx.redisKey),
      sms,
      verifier,
      secrets,
    };
    return {
      routes: identityRouteBindings(deps),
      internal: identityInternalRoutes(deps),
      jobs: [
        purgeExpiredRefreshTokensJob(ctx.db, ctx.log),
        restoreRevocationsJob(
          {
            db: ctx.db,
            redis: ctx.redis,
            revocations: ctx.revocations,
            marker: ctx.redisKey('identity:revocations-held'),
            accessTokenTtlSeconds: ctx.config.ACCESS_TOKEN_TTL_SECONDS,
          },
          ctx.config.REVOCATIONS_CHECK_MS,
          ctx.log,
        ),
      ],
    };
  },
});
