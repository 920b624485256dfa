import { IdParams, Page, PageQuery, EmptyBody, Timestamp, Id, Money, PositiveMoney, SignedMoney } from '../common';
import { z } from '../zod';
import { defineRoute } from './route';
import type { ErrorStatus } from './route';

export const LedgerBizType = z.enum([
  'recharge',
  'order_payment',
  'order_refund',
  'settlement_income',
  'settlement_refund',
  'platform_fee',
  'adjustment',
]);

export const RechargeStatus = z.enum(['pending', 'succeeded', 'failed', 'expired']);
export const RechargeChannel = z.enum(['alipay', 'wechat']);

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
    channel: RechargeChannel,
    status: RechargeStatus,
    pay_url: z.string().openapi({ description: 'where the payer completes the payment at the gateway' }),
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .openapi('RechargePayment');

export const PaygateNotifyBody = z
  .object({
    payment_id: z.string().min(1).max(100),
    gateway_txn_id: z.string().min(1).max(100),
    amount: PositiveMoney,
    status: z.enum(['succeeded', 'failed']),
    paid_at: Timestamp.nullable(),
  })
  .strict()
  .openapi('PaygateNotifyBody');

const ListQuery = PageQuery.extend({
  biz_type: LedgerBizType.optional(),
  order_id: z.string().max(100).optional(),
});

// Wallet is not implemented yet: the gateway answers 501 until the service is.
function walletErrors(...more: ErrorStatus[]): ErrorStatus[] {
  const all: ErrorStatus[] = [...more, 401, 403, 501];
  return all.sort((a, b) => a - b);
}

export const getWalletBalance = defineRoute({
  id: 'getWalletBalance',
  service: 'wallet',
  method: 'get',
  path: '/api/wallet/balance',
  auth: 'user',
  summary: 'The caller’s balance',
  tags: ['wallet'],
  success: { status: 200, description: 'balance', schema: WalletBalance },
  errors: walletErrors(),
});

export const listWalletLedger = defineRoute({
  id: 'listWalletLedger',
  service: 'wallet',
  method: 'get',
  path: '/api/wallet/ledger',
  auth: 'user',
  summary: 'The caller’s ledger entries',
  tags: ['wallet'],
  query: ListQuery,
  success: { status: 200, description: 'entries, newest first', schema: Page(LedgerEntry) },
  errors: walletErrors(400),
});

export const startRecharge = defineRoute({
  id: 'startRecharge',
  service: 'wallet',
  method: 'post',
  path: '/api/wallet/recharge/pay',
  auth: 'user',
  summary: 'Start a recharge payment at the payment gateway',
  description: 'Honours Idempotency-Key.',
  tags: ['wallet'],
  headers: z.object({ 'idempotency-key': z.string().max(200).optional() }),
  body: z.object({ amount: PositiveMoney, channel: RechargeChannel }).strict(),
  success: { status: 201, description: 'the pending payment', schema: RechargePayment },
  errors: walletErrors(400, 409, 502),
});

export const queryRecharge = defineRoute({
  id: 'queryRecharge',
  service: 'wallet',
  method: 'post',
  path: '/api/wallet/recharge/pay/{id}/query',
  auth: 'user',
  summary: 'Ask the gateway for a recharge payment’s state and apply it',
  description: 'Credits the wallet at most once, whatever the number of queries and callbacks.',
  tags: ['wallet'],
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the payment', schema: RechargePayment },
  errors: walletErrors(400, 404, 502),
});

export const paygateNotify = defineRoute({
  id: 'paygateNotify',
  service: 'wallet',
  method: 'post',
  path: '/api/payments/paygate/notify',
  auth: 'public',
  token: 'ignored',
  summary: 'Payment-result callback from the payment gateway',
  description:
    'Paygate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(PAYGATE_SECRET, t + "." + raw body)>. ' +
    'Bad signature or timestamp (±300 s) → 400, nothing changes; amount differing from the payment → 422, nothing credited. A valid repeat → 200, no change.',
  tags: ['payments'],
  headers: z.object({ 'paygate-signature': z.string().max(300) }),
  body: PaygateNotifyBody,
  success: { status: 200, description: 'acknowledged', schema: z.object({ received: z.literal(true) }) },
  errors: [400, 404, 422, 501],
});

export const adminListLedger = defineRoute({
  id: 'adminListLedger',
  service: 'wallet',
  method: 'get',
  path: '/api/admin/wallet/ledger',
  auth: 'admin',
  summary: 'Recent money ledger across all users',
  tags: ['admin-wallet'],
  query: ListQuery.extend({ user_id: z.string().max(100).optional() }),
  success: { status: 200, description: 'entries, newest first', schema: Page(LedgerEntry) },
  errors: walletErrors(400),
});

export const walletRoutes = [getWalletBalance, listWalletLedger, startRecharge, queryRecharge, paygateNotify, adminListLedger];
