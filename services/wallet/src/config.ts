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
  /** HMAC key of the Paygate-Signature on the sandbox's payment callbacks (`POST /api/payments/paygate/notify`, docs/rules.md §5) */
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
  /** public-key mode (pay-in only): Alipay's public key (from the open platform console), verifies answers and notifications */
  ALIPAY_PUBLIC_KEY: pemKey,
  /**
   * Certificate mode (公钥证书), which Alipay's fund APIs and so payouts require: the app's public key
   * certificate (appCertPublicKey_<appid>.crt), Alipay's public key certificate
   * (alipayCertPublicKey_RSA2.crt), which then verifies answers and notifications, and Alipay's root
   * certificate (alipayRootCert.crt). Set all three, or none (public-key mode).
   */
  ALIPAY_APP_CERT: pemKey,
  ALIPAY_PUBLIC_CERT: pemKey,
  ALIPAY_ROOT_CERT: pemKey,
  /** the OpenAPI 2.0 gateway */
  ALIPAY_GATEWAY: z.string().url().default('https://openapi.alipay.com/gateway.do'),
  /** public URL of `POST /api/payments/alipay/notify`, where Alipay posts payment notifications */
  ALIPAY_NOTIFY_URL: z.string().url().optional(),
  /**
   * The channels withdrawals are paid out through, comma-separated (`alipay`, `wechatpay`, `sandbox`);
   * unset: every enabled real payment channel, and in development the sandbox's payouts for the
   * channels with no real one. `none`: no withdrawals (a pay-in-only deployment; an empty variable
   * counts as unset).
   */
  PAYOUT_PROVIDER: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? undefined : v.trim() === 'none' ? [] : v.split(',').map((s) => s.trim()).filter(Boolean)))
    .pipe(z.array(z.enum(PAYMENT_PROVIDERS)).refine((list) => new Set(list).size === list.length, 'a channel is listed twice').optional()),
  /** the first look at an unknown transfer outcome, and the least time between two looks; also how often due looks are sought */
  WITHDRAWAL_CHECK_MS: z.coerce.number().int().min(10).default(60_000),
  /** the most time between two looks at an unknown transfer outcome (the backoff doubles up to it) */
  WITHDRAWAL_CHECK_MAX_MS: z.coerce.number().int().min(10).default(3_600_000),
  /** a transfer whose outcome is still unknown this long after it was sent raises one `ops.alert` (WITHDRAWAL_UNKNOWN) */
  WITHDRAWAL_UNKNOWN_ALERT_MS: z.coerce.number().int().min(0).default(30 * 60_000),
  /** how long after a transfer was paid it is asked about once more, for a return (Alipay's REFUND); 0: never */
  WITHDRAWAL_REVERSAL_CHECK_MS: z.coerce.number().int().min(0).default(24 * 3_600_000),
  /** the first wait before asking again about a refund whose outcome is unknown; each later wait doubles, up to 64 times it */
  REFUND_CHECK_MS: z.coerce.number().int().min(10).default(60_000),
  /** when yesterday's bills are reconciled: `HH:MM` Asia/Shanghai, after the providers publish them (about 10:00) */
  RECONCILIATION_AFTER: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM')
    .default('10:00')
    .transform((v) => Number(v.slice(0, 2)) * 60 + Number(v.slice(3))),
  /** how often the reconciliation job looks for a day still to reconcile */
  RECONCILIATION_SCAN_MS: z.coerce.number().int().min(10).default(900_000),
  /** WeChat Pay merchant: the app id the merchant pays under, and the merchant id */
  WECHATPAY_APP_ID: z.string().min(1).optional(),
  WECHATPAY_MCH_ID: z.string().min(1).optional(),
  /** the merchant's API private key (apiclient_key.pem) */
  WECHATPAY_PRIVATE_KEY: pemKey,
  /** the serial number of the merchant's API certificate, which names the key requests are signed with */
  WECHATPAY_MERCHANT_SERIAL: z.string().regex(/^[0-9A-Fa-f]{8,64}$/).optional(),
  /** the merchant's API certificate (apiclient_cert.pem): where the serial is read from when WECHATPAY_MERCHANT_SERIAL is not set */
  WECHATPAY_CERTIFICATE: pemKey,
  /** WeChat Pay's public key (微信支付公钥, PEM) and its id `PUB_KEY_ID_…`: verifies answers and callbacks signed in public-key mode */
  WECHATPAY_PUBLIC_KEY: pemKey,
  WECHATPAY_PUBLIC_KEY_ID: z.string().regex(/^PUB_KEY_ID_[0-9A-Za-z]+$/).optional(),
  /** WeChat Pay platform certificates (平台证书, PEM, one after another): verify what is signed in certificate mode */
  WECHATPAY_PLATFORM_CERTIFICATES: pemKey,
  /** the API v3 key (32 characters): decrypts callbacks */
  WECHATPAY_API_V3_KEY: z.string().length(32).optional(),
  /** public URL of `POST /api/payments/wechatpay/notify` */
  WECHATPAY_NOTIFY_URL: z.string().url().optional(),
  /** public URL of `POST /api/payments/wechatpay/transfer-notify`; without one, transfers are only asked about */
  WECHATPAY_TRANSFER_NOTIFY_URL: z.string().url().optional(),
  /** public URL of `POST /api/payments/wechatpay/refund-notify`; without one, refunds are only asked about */
  WECHATPAY_REFUND_NOTIFY_URL: z.string().url().optional(),
  /** the 商家转账 scene granted to the merchant (1005: 佣金报酬) */
  WECHATPAY_TRANSFER_SCENE_ID: z.string().regex(/^\d{1,8}$/).default('1005'),
  /** what the payee sees a transfer as (`user_recv_perception`), one the scene allows */
  WECHATPAY_TRANSFER_PERCEPTION: z.string().min(1).max(32).default('劳务报酬'),
  /** the scene's report fields, as JSON `[{"info_type":…,"info_content":…}]` (1005 asks 岗位类型 and 报酬说明) */
  WECHATPAY_TRANSFER_REPORT_INFOS: z
    .string()
    .default('[{"info_type":"岗位类型","info_content":"账号出租方"},{"info_type":"报酬说明","info_content":"账号出租收入提现"}]')
    .transform((v, ctx) => {
      try {
        return JSON.parse(v) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not JSON' });
        return z.NEVER;
      }
    })
    .pipe(z.array(z.object({ info_type: z.string().min(1).max(15), info_content: z.string().min(1).max(32) })).min(1).max(5)),
  WECHATPAY_BASE_URL: z.string().url().default('https://api.mch.weixin.qq.com'),
  WECHATPAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  ALIPAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
};
