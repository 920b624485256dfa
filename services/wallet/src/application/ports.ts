/** What the payment gateway knows about one payment. */
export interface GatewayPayment {
  status: 'pending' | 'succeeded' | 'failed' | 'closed';
  amount: number;
  gatewayTxnId: string | null;
  paidAt: Date | null;
}

/**
 * The payment gateway as the wallet uses it. Implementations throw a 502 problem when the gateway
 * cannot be reached; `null` means the gateway does not know the payment.
 */
export interface PaymentGateway {
  readonly provider: string;
  createPayment(input: { paymentId: string; amount: number; channel: string; expiresAt: Date }): Promise<{ payUrl: string }>;
  queryPayment(paymentId: string): Promise<GatewayPayment | null>;
  /** Closes a payment that is still pending, so it can no longer be paid; answers its final state. */
  closePayment(paymentId: string): Promise<GatewayPayment | null>;
}

/** The development gateway's pay page, part of this system, where a tester marks a payment paid or failed. */
export interface SandboxPayPage {
  page(paymentId: string, nonce: string): Promise<string>;
  complete(paymentId: string, status: 'succeeded' | 'failed'): Promise<{ payment_id: string; status: 'succeeded' | 'failed' }>;
}
