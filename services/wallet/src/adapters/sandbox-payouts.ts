import type { PayoutChannel, PayoutOutcome } from '../application/ports';

/**
 * Development payouts with no provider keys: a transfer is paid the moment it is sent, so a
 * withdrawal approved in the back office ends `paid` and the whole money loop can be tried locally.
 * Kept in memory: after a restart a transfer is not found and sent again, which pays it (again
 * nowhere). Development only: providers.ts never builds it in production.
 */
export class SandboxPayouts implements PayoutChannel {
  private readonly paid = new Map<string, { providerOrderId: string; paidAt: Date }>();

  constructor(readonly channel: 'alipay' | 'wechatpay') {}

  async send(t: { withdrawalId: string }): Promise<Exclude<PayoutOutcome, { outcome: 'not_found' }>> {
    const known = this.paid.get(t.withdrawalId) ?? { providerOrderId: `sandbox-${t.withdrawalId}`, paidAt: new Date() };
    this.paid.set(t.withdrawalId, known);
    return { outcome: 'paid', ...known };
  }

  async query(withdrawalId: string): Promise<PayoutOutcome> {
    const known = this.paid.get(withdrawalId);
    return known ? { outcome: 'paid', ...known } : { outcome: 'not_found' };
  }
}
