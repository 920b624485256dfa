import { IdParams, IdempotencyHeaders, Page, PageQuery, EmptyBody, Timestamp, Id, Money, PositiveMoney, SignedMoney } from '../common';
import { z } from '../zod';
import { routesOf, type ErrorStatus } from './route';
import { withTokenErrors } from './statuses';

const walletRoute = routesOf('wallet', { tags: ['wallet'] });
const paymentRoute = routesOf('wallet', { tags: ['payments'] });
const adminWalletRoute = routesOf('wallet', { tags: ['admin-wallet'] });

export const LedgerBizType = z.enum([
  'recharge',
  'order_payment',
  'order_refund',
  'settlement_income',
  'settlement_refund',
  'platform_fee',
  'adjustment',
  'withdrawal',
  'withdrawal_refund',
  'withdrawal_payout',
  'withdrawal_reversal',
  'refund_hold',
  'refund_payout',
  'refund_release',
]);

export const RechargeStatus = z.enum(['pending', 'succeeded', 'failed', 'expired']);
export const RechargeChannel = z.enum(['alipay', 'wechat']);
export const PaymentProvider = z.enum(['alipay', 'wechatpay', 'sandbox']);
/** What a recharge may name: an enabled channel (`wechat` is WeChat Pay's older name), or nothing for the default. */
export const RechargeRequestChannel = z.enum(['alipay', 'wechat', 'wechatpay', 'sandbox']);

export const WalletBalance = z
  .object({
    available: Money,
    frozen: Money.openapi({ description: 'the renter’s money held in active orders’ escrow' }),
    currency: z.string().openapi({ example: 'CNY' }),
  })
  .openapi('WalletBalance');

export const LedgerEntry = z
  .object({
    id: Id,
    user_id: Id,
    order_id: Id.nullable(),
    biz_type: LedgerBizType,
    amount: SignedMoney,
    balance_after: z.number().int().openapi({ description: 'the user’s available balance after this entry, in fen' }),
    created_at: Timestamp,
  })
  .openapi('LedgerEntry');

export const RechargePayment = z
  .object({
    id: Id,
    amount: PositiveMoney,
    channel: RechargeChannel.openapi({ description: 'the pay method the payer uses' }),
    provider: PaymentProvider.openapi({ description: 'the payment channel that serves the payment' }),
    status: RechargeStatus,
    pay_url: z.string().openapi({ description: 'where the payer completes the payment at the gateway' }),
    qr_code: z
      .string()
      .nullable()
      .openapi({ description: 'for a QR payment (Alipay face-to-face, WeChat Native), the content to show as a QR code; null otherwise' }),
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .openapi('RechargePayment');

/**
 * What the payment gateway posts. Not strict: docs/rules.md §5 says unknown fields are ignored, so a
 * gateway adding one does not break crediting (the kit leaves this body to the handler, which checks
 * the signature over the raw bytes first).
 */
export const PaygateNotifyBody = z
  .object({
    payment_id: z.string().min(1).max(100),
    gateway_txn_id: z.string().min(1).max(100),
    amount: PositiveMoney,
    status: z.enum(['succeeded', 'failed']),
    paid_at: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .openapi({ description: 'any ISO 8601 time, with `Z` or an offset; null or absent for a failed payment', example: '2026-11-22T17:00:00+08:00' }),
  })
  .openapi('PaygateNotifyBody');

export const SandboxCompleteBody = z
  .object({ status: z.enum(['succeeded', 'failed']).openapi({ description: 'what the tester decides the payer did' }) })
  .strict();

const ListQuery = PageQuery.extend({
  biz_type: LedgerBizType.optional(),
  order_id: z.string().max(100).optional(),
});

export const getWalletBalance = walletRoute('get /api/wallet/balance', { id: 'getWalletBalance', auth: 'user',
  summary: 'The caller’s balance',
  description:
    '`available` is what the caller can spend now; `frozen` is the caller’s money held in the escrow of their active orders ' +
    '(paid, not yet settled or refunded). A user who never had money gets zeros.',
  success: { status: 200, description: 'balance', schema: WalletBalance }, errors: withTokenErrors(),
});

export const listWalletLedger = walletRoute('get /api/wallet/ledger', { id: 'listWalletLedger', auth: 'user',
  summary: 'The caller’s ledger entries',
  description:
    'Every movement of the caller’s available balance, newest first: `amount` is signed (credit positive), `balance_after` ' +
    'is the available balance right after it. Filters: `biz_type`, `order_id` (an id that is not an order id matches nothing). ' +
    'Cursor pages (`next_cursor`).',
  query: ListQuery,
  success: { status: 200, description: 'entries, newest first', schema: Page(LedgerEntry) }, errors: withTokenErrors(400),
});

export const startRecharge = walletRoute('post /api/wallet/recharge/pay', { id: 'startRecharge', auth: 'user',
  summary: 'Start a recharge payment at the payment gateway',
  description:
    '`amount` in fen, at least 100 (1 CNY) and at most 5,000,000 (50,000 CNY) by default (RECHARGE_MIN_FEN / RECHARGE_MAX_FEN); ' +
    'outside that range → 400 VALIDATION_FAILED. The payment is `pending` until the gateway’s signed callback or a query ' +
    'settles it; unpaid, it expires at `expires_at` (15 minutes by default) and moves to `expired`. The payer completes it at ' +
    '`pay_url` (or by scanning `qr_code`). `channel` names one of the enabled channels (PAYGATE_PROVIDER: `alipay`, ' +
    '`wechatpay` — `wechat` is its older name — `sandbox`); absent, the first enabled one serves it. In development the sandbox, ' +
    'when enabled, serves a pay method whose channel is not. A channel nothing serves → 400 CHANNEL_UNAVAILABLE. ' +
    'Honours Idempotency-Key. 502 when the payment gateway cannot be reached (nothing is created).',
  headers: IdempotencyHeaders,
  body: z.object({ amount: PositiveMoney, channel: RechargeRequestChannel.optional() }).strict(),
  success: { status: 201, description: 'the pending payment', schema: RechargePayment }, errors: withTokenErrors(400, 409, 502),
});

export const queryRecharge = walletRoute('post /api/wallet/recharge/pay/{id}/query', { id: 'queryRecharge', auth: 'user',
  summary: 'Ask the gateway for a recharge payment’s state and apply it',
  description:
    'Credits the wallet at most once, whatever the number of queries and callbacks, in any order. Only the payer sees the ' +
    'payment (404 otherwise). A payment already succeeded, failed or expired is answered as it is, without asking the gateway. ' +
    '502 when the gateway cannot be reached (the payment stays as it was).',
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the payment', schema: RechargePayment }, errors: withTokenErrors(400, 404, 502),
});

export const paygateNotify = paymentRoute('post /api/payments/paygate/notify', { id: 'paygateNotify', auth: 'public', token: 'ignored',
  summary: 'Payment-result callback of the development sandbox gateway',
  description:
    'There only when the sandbox provider is enabled (development); otherwise 404. It settles the sandbox’s own payments ' +
    'only: an Alipay or WeChat Pay payment id → 404, nothing changes. ' +
    'Paygate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(PAYGATE_SECRET, t + "." + raw body)>. ' +
    'The signature is checked over the raw bytes before the body is read. Bad or missing signature or timestamp ' +
    '(±300 s) → 400 SIGNATURE_INVALID, nothing changes; then the body must match its schema (400 VALIDATION_FAILED), unknown ' +
    'fields are ignored; unknown payment → 404; amount differing from the payment → 422 PAYGATE_REJECTED, nothing credited, ' +
    'an audit entry written. A valid repeat, or a result for a payment already final → 200, no change.',
  bodyType: 'raw',
  headers: z.object({ 'paygate-signature': z.string().max(300) }),
  body: PaygateNotifyBody,
  success: { status: 200, description: 'acknowledged', schema: z.object({ received: z.literal(true) }) }, errors: [400, 404, 422],
});

export const alipayNotify = paymentRoute('post /api/payments/alipay/notify', { id: 'alipayNotify', auth: 'public', token: 'ignored',
  summary: 'Alipay’s asynchronous payment notification',
  description:
    'A form post (`application/x-www-form-urlencoded`) from Alipay, signed RSA2 with Alipay’s key. Answered as Alipay expects, ' +
    'in plain text: `success` once applied (or already applied: a replay credits nothing), `fail` (status 400) for a bad ' +
    'signature, another app id, an unknown payment or another amount — each refusal audited, nothing credited — and `fail` ' +
    '(503) when it cannot be applied now (Alipay posts again later). These answers are Alipay’s protocol, not problem ' +
    'documents; with the alipay channel not enabled → 404 problem.',
  bodyType: 'raw',
  success: { status: 200, description: '`success`', contentType: 'text/plain' }, errors: [400, 404, 503],
});

/**
 * What every WeChat Pay callback declares: the raw body its handler verifies itself, the headers
 * WeChat Pay signs it with (the serial names the public key `PUB_KEY_ID_…` or a platform
 * certificate), and its answers: 204 once handled, else WeChat Pay's own `FAIL` (400, or 503 to be
 * posted again) or a 404 problem while the channel is not enabled.
 */
const WECHATPAY_CALLBACK = {
  bodyType: 'raw' as const,
  headers: z.object({
    'wechatpay-timestamp': z.string().max(20).optional(),
    'wechatpay-nonce': z.string().max(64).optional(),
    'wechatpay-signature': z.string().max(1024).optional(),
    'wechatpay-serial': z.string().max(64).optional(),
  }),
  success: { status: 204 as const, description: 'acknowledged' },
  errors: [400, 404, 503] satisfies ErrorStatus[],
};

export const wechatpayNotify = paymentRoute('post /api/payments/wechatpay/notify', { id: 'wechatpayNotify', auth: 'public', token: 'ignored',
  summary: 'WeChat Pay’s payment callback (API v3)',
  description:
    'JSON with an AEAD_AES_256_GCM-encrypted `resource`, signed by WeChat Pay (`Wechatpay-Timestamp`, `Wechatpay-Nonce`, ' +
    '`Wechatpay-Signature`) with the key `Wechatpay-Serial` names: its public key `PUB_KEY_ID_…` or a platform certificate ' +
    '(an unknown serial is refused). `204` once applied or already applied (a replay credits ' +
    'nothing); a bad or stale signature, an undecryptable resource, another appid or mchid, an unknown payment or another ' +
    'amount → `400` `{"code":"FAIL","message":…}`, audited, nothing credited; `503` with the same shape when it cannot be ' +
    'applied now (WeChat Pay posts again). These answers are WeChat Pay’s protocol, not problem documents; with the ' +
    'wechatpay channel not enabled → 404 problem.',
  ...WECHATPAY_CALLBACK,
});

export const wechatpayTransferNotify = paymentRoute('post /api/payments/wechatpay/transfer-notify', { id: 'wechatpayTransferNotify', auth: 'public', token: 'ignored',
  summary: 'WeChat Pay’s merchant-transfer callback (API v3, `MCHTRANSFER.BILL.FINISHED`)',
  description:
    'Signed and encrypted as the payment callback: the signature is checked with the key the `Wechatpay-Serial` names (the ' +
    'WeChat Pay public key or a platform certificate; an unknown serial is refused), the resource opened with the API v3 key. ' +
    'The callback decides nothing by itself: for a withdrawal of ours it makes the wallet ask WeChat Pay about the transfer ' +
    'now and apply that answer. `204` once asked; a bad or stale signature, an undecryptable resource, another merchant or ' +
    'an unknown withdrawal → `400` `{"code":"FAIL","message":…}`; `503` with the same shape when it cannot be handled now ' +
    '(WeChat Pay posts again). WeChat Pay’s protocol, not problem documents; with the wechatpay channel not enabled → 404 problem.',
  ...WECHATPAY_CALLBACK,
});

export const wechatpayRefundNotify = paymentRoute('post /api/payments/wechatpay/refund-notify', { id: 'wechatpayRefundNotify', auth: 'public', token: 'ignored',
  summary: 'WeChat Pay’s refund callback (API v3, `REFUND.SUCCESS` / `REFUND.ABNORMAL` / `REFUND.CLOSED`)',
  description:
    'Signed and encrypted as the payment callback and checked the same way. It decides nothing by itself: the refund’s ' +
    'outcome is what WeChat Pay answers when asked by the refund number. `204` once received; a bad or stale signature, ' +
    'an unknown serial, an undecryptable resource, another merchant or a refund number not of ours → `400` ' +
    '`{"code":"FAIL","message":…}`; `503` when it cannot be handled now. With the wechatpay channel not enabled → 404 problem.',
  ...WECHATPAY_CALLBACK,
});

export const SandboxPaymentResult = z.object({ payment_id: Id, status: z.enum(['succeeded', 'failed']) });

export const sandboxPaymentPage = paymentRoute('get /api/payments/sandbox/{id}', { id: 'sandboxPaymentPage', auth: 'public', token: 'ignored',
  summary: 'Development only: the sandbox payment gateway’s pay page',
  description:
    'Only with PAYGATE_PROVIDER=sandbox (refused in production; 404 otherwise). The `pay_url` of a recharge points here: a small ' +
    'HTML page where a tester marks the payment paid or failed.',
  params: IdParams,
  success: { status: 200, description: 'the HTML page', contentType: 'text/html' }, errors: [404],
});

export const completeSandboxPayment = paymentRoute('post /api/payments/sandbox/{id}/complete', { id: 'completeSandboxPayment', auth: 'public', token: 'ignored',
  summary: 'Development only: the tester marks a sandbox payment paid or failed',
  description:
    'Only with PAYGATE_PROVIDER=sandbox (404 otherwise). Records the choice (what a later query of the gateway answers) and ' +
    'sends the signed callback to the payment notification, as a real gateway would. A payment already marked, closed or ' +
    'expired → 409 INVALID_STATE.',
  params: IdParams,
  body: SandboxCompleteBody,
  success: { status: 200, description: 'what the sandbox recorded', schema: SandboxPaymentResult }, errors: [400, 404, 409],
});

export const adminListLedger = adminWalletRoute('get /api/admin/wallet/ledger', { id: 'adminListLedger', auth: 'admin', permission: 'ledger.read',
  summary: 'Recent money ledger across all users',
  description: 'Entries of users’ available balances, newest first; filters `user_id`, `order_id`, `biz_type`; cursor pages.',
  query: ListQuery.extend({ user_id: z.string().max(100).optional() }),
  success: { status: 200, description: 'entries, newest first', schema: Page(LedgerEntry) }, errors: withTokenErrors(400),
});

export const walletRoutes = [
  getWalletBalance,
  listWalletLedger,
  startRecharge,
  queryRecharge,
  paygateNotify,
  alipayNotify,
  wechatpayNotify,
  wechatpayTransferNotify,
  wechatpayRefundNotify,
  sandboxPaymentPage,
  completeSandboxPayment,
  adminListLedger,
];

/** One rule of the wallet's double-entry ledger that does not hold, with (up to 50 of) the rows that break it. */
export const LedgerDifference = z
  .object({
    check: z.string().openapi({ description: 'the ledger rule that does not hold', example: 'the balances of all accounts sum to zero' }),
    rows: z.array(z.record(z.string(), z.unknown())).openapi({ description: 'up to 50 of the rows that break it, as the check reads them' }),
  })
  .openapi('LedgerDifference');

/**
 * The ledger rule the hash chains answer (ADR 0067): its rows are ChainBreaks (the account, the first
 * entry at which its chain stops holding, what is wrong), so the console shows them as such.
 */
export const LEDGER_CHAIN_CHECK = 'every account’s entries form an unbroken hash chain up to its head: none altered, removed or inserted';

/** The wallet's ledger verification (`npm run wallet:verify`): how many rules were checked and each that does not hold. */
export const LedgerVerification = z
  .object({
    checks: z.number().int().min(0).openapi({ description: 'how many ledger rules were checked' }),
    differences: z.array(LedgerDifference).openapi({ description: 'empty when the ledger is sound' }),
  })
  .openapi('LedgerVerification');
