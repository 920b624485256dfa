import type { SecretBox } from '@market/shared/crypto';
import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import type { PaymentProvider } from '../domain/payment-channel';
import type { RechargeLimits } from '../domain/payment';
import type { AlipayNotifications, PayeeDirectory, PaymentGateway, PayoutChannel, SandboxPayPage, WechatPayNotifications, WithdrawalSettings } from './ports';

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
  /** the keyring that seals payees at rest */
  secrets: SecretBox;
}
