import { MAX_MONEY_FEN, z } from '@market/contracts';
import { dataEncryptionShape, secret } from '@market/shared/config';
import { PAYMENT_PROVIDERS } from './domain/payment-channel';

const fen = z.coerce.number().int().min(1).max(MAX_MONEY_FEN);

/** A PEM key from the environment, where line breaks are often written as `\n`. */
const pemKey = z
  .string()
  .min(1)
  .transform((v) => v.replace(/\\n/g, '\n'))
  .optional();

/** The wallet's environment, on top of what every service reads. */
export const walletEnv = {
  /** seals withdrawals' payee accounts and names at rest */
  DATA_ENCRYPTION_KEYS: dataEncryptionShape.DATA_ENCRYPTION_KEYS,
  /**
   * The enabled payment channels, comma-separated, the first being a recharge's default: `alipay`,
   * `wechatpay`, `sandbox` (a pay page of this system, for development; refused outside NODE_ENV=development)
   */
  PAYGATE_PROVIDER: z
    .string()
    .default('sandbox')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.enum(PAYMENT_PROVIDERS)).min(1).refine((list) => new Set(list).size === list.length, 'a channel is listed twice')),
  /** HMAC key of the Paygate-Signature on the sandbox's payment callbacks (CONTRACT §5) */
  PAYGATE_SECRET: secret('dev-only-paygate-secret-00000000000000000000000'),
  RECHARGE_MIN_FEN: fen.default(100),
  RECHARGE_MAX_FEN: fen.default(5_000_000),
  /** how long a recharge payment may stay unpaid */
  RECHARGE_EXPIRY_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  /** how often overdue pending payments are looked at */
  PAYMENT_EXPIRY_SCAN_MS: z.coerce.number().int().min(10).default(30_000),
  /** a payment still pending this long after it was opened (or last asked about) is queried at its gateway */
  PAYMENT_QUERY_AFTER_MS: z.coerce.number().int().min(10).default(180_000),
  /** how often pending payments due for a query are looked at */
  PAYMENT_QUERY_SCAN_MS: z.coerce.number().int().min(10).default(30_000),
  WALLET_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('CNY'),
  /** Alipay open platform app id */
  ALIPAY_APP_ID: z.string().min(1).optional(),
  /** the app's RSA2 private key (PKCS#1 PEM, or its base64 body) */
  ALIPAY_PRIVATE_KEY: pemKey,
  /** Alipay's public key (from the open platform console): verifies answers and notifications */
  ALIPAY_PUBLIC_KEY: pemKey,
  /** the OpenAPI 2.0 gateway */
  ALIPAY_GATEWAY: z.string().url().default('https://openapi.alipay.com/gateway.do'),
  /** public URL of `POST /api/payments/alipay/notify`, where Alipay posts payment notifications */
  ALIPAY_NOTIFY_URL: z.string().url().optional(),
  /** how often withdrawals whose transfer outcome is not known yet are asked about */
  WITHDRAWAL_CHECK_MS: z.coerce.number().int().min(10).default(60_000),
  /** WeChat Pay merchant: the app id the merchant pays under, and the merchant id */
  WECHATPAY_APP_ID: z.string().min(1).optional(),
  WECHATPAY_MCH_ID: z.string().min(1).optional(),
  /** the merchant's API private key (apiclient_key.pem) */
  WECHATPAY_PRIVATE_KEY: pemKey,
  /** the merchant's API certificate (apiclient_cert.pem), whose serial number signs requests */
  WECHATPAY_CERTIFICATE: pemKey,
  /** the API v3 key (32 characters): decrypts callbacks and platform certificates */
  WECHATPAY_API_V3_KEY: z.string().length(32).optional(),
  /** public URL of `POST /api/payments/wechatpay/notify` */
  WECHATPAY_NOTIFY_URL: z.string().url().optional(),
  WECHATPAY_BASE_URL: z.string().url().default('https://api.mch.weixin.qq.com'),
  WECHATPAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  ALIPAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
};
