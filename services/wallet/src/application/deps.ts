import type { EventWriter } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import type { ServiceContext } from '@market/shared/service';
import type { SandboxPaymentGateway } from '../adapters/sandbox-gateway';
import type { RechargeLimits } from '../domain/payment';
import type { PaymentGateway } from './ports';

/** What the use cases run against, built once in service.ts. */
export interface WalletDeps {
  db: ServiceContext['db'];
  events: EventWriter;
  log: Logger;
  gateway: PaymentGateway;
  /** the development gateway's pay page, when it is the configured gateway */
  sandbox: SandboxPaymentGateway | null;
  currency: string;
  recharge: RechargeLimits & { expiryMinutes: number };
  paygateSecret: string;
}
