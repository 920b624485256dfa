import { type Logger } from '@market/shared/logging';
import { AlipayBills } from './alipay-bills';
import { AlipayClient, AlipayGateway, type AlipayVerification } from './alipay-gateway';
import { AlipayPayouts } from './alipay-payouts';
import { AlipayRefunds } from './alipay-refunds';
import type { GatewayConfig } from './providers';

/** Alipay's payments, refunds, bills and (when it pays out) transfers, over one client; the settings read with `!` were checked by paymentConfigFaults. */
export function alipayChannel(config: GatewayConfig, verification: AlipayVerification, paysOut: boolean, log: Logger) {
  const client = new AlipayClient(
    {
      appId: config.ALIPAY_APP_ID!,
      privateKey: config.ALIPAY_PRIVATE_KEY!,
      verification,
      gateway: config.ALIPAY_GATEWAY,
      notifyUrl: config.ALIPAY_NOTIFY_URL!,
      timeoutMs: config.ALIPAY_TIMEOUT_MS,
    },
    log,
  );
  if (paysOut && verification.mode === 'public_key') log.warn('Alipay payouts in public-key mode: Alipay refuses its fund APIs without certificate mode (refused in production)');
  return {
    gateway: new AlipayGateway(client),
    payouts: paysOut ? new AlipayPayouts(client) : null,
    refunds: new AlipayRefunds(client),
    bills: new AlipayBills(client, config.ALIPAY_TIMEOUT_MS),
  };
}
