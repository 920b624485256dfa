import type { SecretBox } from '@market/shared/crypto';
import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import type { PaymentProvider } from '../domain/payment-channel';
import type { RechargeLimits } from '../domain/payment';
import type { SandboxRefunds } from '../adapters/sandbox-refunds';
import type {
  AlipayNotifications,
  BillSource,
  PayeeDirectory,
  PaymentGateway,
  PayoutChannel,
  RefundChannel,
  SandboxPayPage,
  WechatPayNotifications,
  WithdrawalSettings,
} from './ports';

/** What the use cases run against, built once in service.ts. */
export interface WalletDeps {
  db: Db;
  events: EventWriter;
  log: Logger;
  /** the enabled payment channels, the first being a recharge's default */
  channels: PaymentProvider[];
  gateways: Map<PaymentProvider, PaymentGateway>;
  /** the development gateway's pay page, when the sandbox is enabled */
  sandbox: SandboxPayPage | null;
  /** Alipay's notifications, when Alipay is enabled */
  alipay: AlipayNotifications | null;
  /** WeChat Pay's callbacks, when WeChat Pay is enabled */
  wechatpay: WechatPayNotifications | null;
  currency: string;
  recharge: RechargeLimits & { expiryMinutes: number; queryAfterMs: number };
  paygateSecret: string;
  /** the enabled payout channels */
  payouts: Map<string, PayoutChannel>;
  payees: PayeeDirectory;
  withdrawalSettings: WithdrawalSettings;
  /**
   * Looks at transfers (ADR 0049): the least and most time between two looks at an unknown
   * outcome, after how long the back office is alerted, and when a paid transfer is looked at once
   * more for a return (null: never).
   */
  withdrawal: { recheckMs: number; recheckMaxMs: number; alertAfterMs: number; reversalCheckAfterMs: number | null };
  /** refunds to the original payment method, by the recharge's provider */
  refunds: Map<PaymentProvider, RefundChannel>;
  /** the providers' daily bills, for reconciliation */
  bills: Map<PaymentProvider, BillSource>;
  /** the development gateway's refunds, where a tester marks one done or failed, when the sandbox is enabled */
  sandboxRefunds: Pick<SandboxRefunds, 'complete'> | null;
  /** the first wait between looks at a refund whose outcome is unknown (doubling after each) */
  refund: { recheckMs: number };
  /** reconciliation of yesterday's bills starts this many minutes after midnight, Asia/Shanghai */
  reconciliation: { afterMinutes: number };
  /** the keyring that seals payees at rest */
  secrets: SecretBox;
}
