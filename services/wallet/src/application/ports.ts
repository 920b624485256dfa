import type { PaymentProvider } from '../domain/payment-channel';

/** What the payment gateway knows about one payment. */
export interface GatewayPayment {
  status: 'pending' | 'succeeded' | 'failed' | 'closed';
  amount: number;
  gatewayTxnId: string | null;
  paidAt: Date | null;
}

/** What the payer needs to pay: a page to open, and for a QR payment the code's content. */
export interface PaymentInstructions {
  payUrl: string;
  qrCode: string | null;
}

/**
 * One payment provider as the wallet uses it. Implementations throw a `DependencyFailed` when the
 * gateway cannot be reached or answers unexpectedly; `null` means the gateway does not know the payment.
 */
export interface PaymentGateway {
  readonly provider: PaymentProvider;
  createPayment(input: { paymentId: string; amount: number; channel: string; expiresAt: Date }): Promise<PaymentInstructions>;
  queryPayment(paymentId: string): Promise<GatewayPayment | null>;
  /** Closes a payment that is still pending, so it can no longer be paid; answers its final state. */
  closePayment(paymentId: string): Promise<GatewayPayment | null>;
}

/** Alipay's asynchronous notifications: whether the fields carry Alipay's RSA2 signature, and which app they are for. */
export interface AlipayNotifications {
  readonly appId: string;
  verify(fields: Record<string, string>): boolean;
}

/** The development gateway's pay page, part of this system, where a tester marks a payment paid or failed. */
export interface SandboxPayPage {
  page(paymentId: string, nonce: string): Promise<string>;
  complete(paymentId: string, status: 'succeeded' | 'failed'): Promise<{ payment_id: string; status: 'succeeded' | 'failed' }>;
}

/**
 * What a payout provider says about one transfer. `unknown`: sent, outcome not known yet (ask again);
 * every answer not on the adapter's list of known-final failures is `unknown`, never `failed`.
 * `awaiting_payee`: accepted, and the payee must confirm the receipt in the provider's app (WeChat's
 * `WAIT_USER_CONFIRM`) with `confirmation` (WeChat's `package_info`); still unknown for the money.
 * `reversed`: paid, then returned to the merchant (Alipay's `REFUND`).
 */
export type PayoutOutcome =
  | { outcome: 'paid'; providerOrderId: string | null; paidAt: Date }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'unknown'; detail?: string }
  | { outcome: 'awaiting_payee'; confirmation: string; providerOrderId: string | null }
  | { outcome: 'reversed'; providerOrderId: string | null; reason: string }
  | { outcome: 'not_found' };

/** A channel that sends withdrawals out, keyed by the withdrawal id so that a repeat is never paid twice. */
export interface PayoutChannel {
  readonly channel: 'alipay' | 'wechatpay';
  send(transfer: { withdrawalId: string; amount: number; payeeAccount: string; payeeName: string }): Promise<Exclude<PayoutOutcome, { outcome: 'not_found' }>>;
  query(withdrawalId: string): Promise<PayoutOutcome>;
  /** Asks the provider to cancel a transfer the payee has not confirmed yet; the outcome comes by query. */
  cancel?(withdrawalId: string): Promise<void>;
}

/** What a provider says about one refund, keyed by our refund id (Alipay's `out_request_no`, WeChat's `out_refund_no`). */
export type RefundOutcome =
  | { outcome: 'refunded'; providerRefundId: string | null; refundedAt: Date }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'unknown'; detail?: string }
  | { outcome: 'not_found' };

/**
 * Returns money of one recharge to the payment method it came from. Keyed by the refund id, so a
 * repeat with the same id and amount is refunded once at most; only known-final answers are `failed`.
 */
export interface RefundChannel {
  readonly provider: PaymentProvider;
  refund(input: {
    refundId: string;
    paymentId: string;
    gatewayTxnId: string | null;
    refundAmount: number;
    paymentAmount: number;
    reason: string;
  }): Promise<Exclude<RefundOutcome, { outcome: 'not_found' }>>;
  query(input: { refundId: string; paymentId: string }): Promise<RefundOutcome>;
}

/** One line of a provider's daily bill, in fen, as reconciliation matches it with the ledger. */
export interface BillLine {
  kind: 'payment' | 'refund' | 'transfer' | 'fee';
  /** our id: the payment id (recharge), refund id or withdrawal id the provider echoes back */
  reference: string;
  providerId: string | null;
  /** positive, in fen */
  amount: number;
  /** the provider's fee on the line, in fen */
  fee: number;
  occurredAt: Date;
}

/**
 * A provider's bills for one day in Asia/Shanghai (`YYYY-MM-DD`): trade bill and fund-flow bill read
 * as one list of lines. `null` when the provider has no bill for that day yet (ask again later).
 */
export interface BillSource {
  readonly provider: PaymentProvider;
  dailyBill(day: string): Promise<BillLine[] | null>;
}

/** Identity as the wallet asks it before a payout: standing, real name, and whether a name is it. */
export interface PayeeDirectory {
  check(userId: string, name: string): Promise<{ frozen: boolean; realnameStatus: string; nameMatches: boolean } | null>;
}

/** Admin's system configs, read when a withdrawal is requested. */
export interface WithdrawalSettings {
  limits(): Promise<{ minAmount: number; dailyLimit: number; autoApproveBelow: number }>;
}

/** WeChat Pay's callbacks: its signature over the raw body (by the key `serial` names), and the AEAD_AES_256_GCM resource. */
export interface WechatPayNotifications {
  readonly appId: string;
  readonly mchId: string;
  verify(headers: { timestamp: string; nonce: string; serial: string; signature: string }, body: string): Promise<boolean>;
  decrypt(resource: { ciphertext: string; associated_data: string; nonce: string }): {
    appid?: string;
    mchid?: string;
    out_trade_no?: string;
    transaction_id?: string;
    trade_state?: string;
    amount?: { total?: number };
    success_time?: string;
  } | null;
  /** Any callback's resource (a transfer bill, a refund) opened with the API v3 key; null when it does not open. */
  openResource(resource: { ciphertext?: string; associated_data?: string; nonce?: string } | undefined): Record<string, unknown> | null;
}
