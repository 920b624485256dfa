import type { Revocations } from '@market/shared/auth';
import type { SecretBox } from '@market/shared/crypto';
import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { ServiceContext } from '@market/shared/service';
import type { identityEnv } from '../config';
import type { CalendarQuota } from '../persistence/calendar-quota';
import type { RedisLocks } from '../persistence/redis-lock';
import type { SmsCodeStore } from '../persistence/sms-code-store';
import type { RealnameVerifier, SmsProvider } from './ports';

export type IdentityConfig = ServiceContext<typeof identityEnv>['config'];

/** What the use cases run on, built once in service.ts. */
export interface IdentityDeps {
  config: IdentityConfig;
  db: Db;
  events: EventWriter;
  revocations: Revocations;
  smsCodes: SmsCodeStore;
  quotas: CalendarQuota;
  locks: RedisLocks;
  sms: SmsProvider;
  verifier: RealnameVerifier;
  secrets: SecretBox;
}
