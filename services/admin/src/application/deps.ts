import type { Revocations } from '@market/shared/auth';
import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { InternalClient } from '@market/shared/http';
import type { Logger } from '@market/shared/logging';
import type { ServiceContext } from '@market/shared/service';
import type { PasswordHasher } from './ports';
import type { adminEnv, CaptchaMode } from '../config';
import type { CaptchaStore } from '../persistence/captcha-store';

export type AdminConfig = ServiceContext<typeof adminEnv>['config'];

/** What the use cases run against; service.ts builds it from the kit's context. */
export interface AdminDeps {
  db: Db;
  events: EventWriter;
  log: Logger;
  config: AdminConfig;
  captchaMode: CaptchaMode;
  captchas: CaptchaStore;
  passwords: PasswordHasher;
  revocations: Revocations;
  internal: InternalClient;
}
