/** The payment providers the wallet can be configured with (PAYGATE_PROVIDER). */
export const PAYMENT_PROVIDERS = ['alipay', 'wechatpay', 'sandbox'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

/** What a recharge request may name: a provider, or the pay method (`wechat` is WeChat Pay's older name). */
export type RequestedChannel = PaymentProvider | 'wechat';

/** The payer's pay method a payment is shown with. */
export type PayMethod = 'alipay' | 'wechat';

export interface ResolvedChannel {
  provider: PaymentProvider;
  method: PayMethod;
}

const methodOf = (provider: PaymentProvider): PayMethod => (provider === 'wechatpay' ? 'wechat' : 'alipay');

/**
 * Which enabled provider serves a recharge: none named → the first enabled (so clients that name no
 * channel keep working); a real channel → itself when enabled, else the sandbox when it is enabled
 * (in development the sandbox plays every pay method, as it always has); null when nothing serves it.
 */
export function resolveChannel(enabled: readonly PaymentProvider[], requested: RequestedChannel | undefined): ResolvedChannel | null {
  if (requested === undefined) return { provider: enabled[0]!, method: methodOf(enabled[0]!) };
  const provider: PaymentProvider = requested === 'wechat' ? 'wechatpay' : requested;
  if (enabled.includes(provider)) return { provider, method: methodOf(provider) };
  if (provider !== 'sandbox' && enabled.includes('sandbox')) return { provider: 'sandbox', method: methodOf(provider) };
  return null;
}
