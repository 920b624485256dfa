import { type Logger } from '@market/shared/logging';
import type { GatewayConfig } from './providers';
import { WechatPayBills } from './wechatpay-bills';
import { certificateSerial, WechatPayClient, wechatPayPlatformKeys } from './wechatpay-client';
import { WechatPayGateway } from './wechatpay-gateway';
import { WechatPayPayouts } from './wechatpay-payouts';
import { WechatPayRefunds } from './wechatpay-refunds';

/** WeChat Pay's payments, refunds, bills and (when it pays out) merchant transfers, over one client; the settings read with `!` were checked by paymentConfigFaults. */
export function wechatPayChannel(config: GatewayConfig, paysOut: boolean, log: Logger) {
  const client = new WechatPayClient(
    {
      appId: config.WECHATPAY_APP_ID!,
      mchId: config.WECHATPAY_MCH_ID!,
      privateKey: config.WECHATPAY_PRIVATE_KEY!,
      merchantSerial: config.WECHATPAY_MERCHANT_SERIAL?.toUpperCase() ?? certificateSerial(config.WECHATPAY_CERTIFICATE!),
      platformKeys: wechatPayPlatformKeys({
        publicKey: config.WECHATPAY_PUBLIC_KEY,
        publicKeyId: config.WECHATPAY_PUBLIC_KEY_ID,
        platformCertificates: config.WECHATPAY_PLATFORM_CERTIFICATES,
      }),
      apiV3Key: config.WECHATPAY_API_V3_KEY!,
      baseUrl: config.WECHATPAY_BASE_URL,
      timeoutMs: config.WECHATPAY_TIMEOUT_MS,
    },
    log,
  );
  const payouts = paysOut
    ? new WechatPayPayouts(client, {
        sceneId: config.WECHATPAY_TRANSFER_SCENE_ID,
        perception: config.WECHATPAY_TRANSFER_PERCEPTION,
        reportInfos: config.WECHATPAY_TRANSFER_REPORT_INFOS,
        notifyUrl: config.WECHATPAY_TRANSFER_NOTIFY_URL ?? null,
      })
    : null;
  return {
    gateway: new WechatPayGateway(client, config.WECHATPAY_NOTIFY_URL!),
    payouts,
    refunds: new WechatPayRefunds(client, config.WECHATPAY_REFUND_NOTIFY_URL ?? null),
    bills: new WechatPayBills(client),
  };
}
