import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import type { RechargeLimits } from '../domain/payment';
import type { PaymentGateway, SandboxPayPage } from './ports';

/** What the use cases run against, built once in service.ts. */
export interface WalletDeps {
  db: Db;
  events: EventWriter;
  log: Logger;
  gateway: PaymentGateway;
  /** the development gateway's pay page, when it is the configured gateway */
  sandbox: SandboxPayPage | null;
  currency: string;
  recharge: RechargeLimits & { expiryMinutes: number };
  paygateSecret: string;
}
