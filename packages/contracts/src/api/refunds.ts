import { EmptyBody, Id, IdempotencyHeaders, IdParams, Page, PageQuery, PositiveMoney, ReasonBody, Money, SignedMoney, Timestamp } from '../common';
import { z } from '../zod';
import { routesOf } from './route';
import { PaymentProvider, SandboxCompleteBody } from './wallet';
import { changeById } from './change-by-id';

const walletRoute = routesOf('wallet', { tags: ['wallet'] });
const adminWalletRoute = routesOf('wallet', { tags: ['admin-wallet'] });
const paymentRoute = routesOf('wallet', { tags: ['payments'] });

export const RefundStatus = z.enum(['requested', 'approved', 'processing', 'refunded', 'failed', 'rejected']);
export const RefundKind = z.enum(['user_request', 'late_success', 'amount_mismatch']).openapi({
  description:
    '`user_request`: the user returns unspent recharge money; `late_success`: finance returns a recharge credited after it ' +
    'had been given up; `amount_mismatch`: finance returns money that arrived with another amount than the recharge and was never credited',
});

export const Refund = z
  .object({
    id: Id,
    payment_id: Id,
    user_id: Id,
    provider: PaymentProvider,
    kind: RefundKind,
    amount: PositiveMoney,
    reason: z.string().nullable().openapi({ description: 'why it was asked for, rejected or why the provider refused it' }),
    status: RefundStatus,
    provider_refund_id: z.string().nullable(),
    decided_by: Id.nullable(),
    created_at: Timestamp,
    decided_at: Timestamp.nullable(),
    refunded_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .openapi('Refund');

const STATES =
  '`requested` → `approved` (finance; the amount moves from the available balance to a refund hold) → `processing` (sent to ' +
  'the provider once, under the refund id) → `refunded` (the hold leaves the platform) or `failed` (the hold goes back); ' +
  '`requested` → `rejected`. An unknown outcome is asked about until final.';

export const RefundRequestBody = z
  .object({
    payment_id: z.string().max(100),
    amount: PositiveMoney,
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

export const requestRefund = walletRoute('post /api/wallet/refunds', { id: 'requestRefund', auth: 'user',
  summary: 'Ask for unspent money of one of one’s recharges back to the payment method it came from',
  description:
    'At most what the recharge paid less what its refunds not rejected or failed already take (422 REFUND_EXCEEDS_PAYMENT), and ' +
    'at most the available balance (409 INSUFFICIENT_BALANCE). Another user’s or an unknown recharge → 404; one not ' +
    '`succeeded` → 409 INVALID_STATE; its provider cannot refund here → 400 CHANNEL_UNAVAILABLE. Reviewed by finance. ' +
    STATES + ' Honours Idempotency-Key.',
  headers: IdempotencyHeaders,
  body: RefundRequestBody,
  success: { status: 201, description: 'the refund', schema: Refund }, errors: [400, 401, 403, 404, 409, 422],
});

export const listRefunds = walletRoute('get /api/wallet/refunds', { id: 'listRefunds', auth: 'user',
  summary: 'The caller’s refunds, newest first',
  query: PageQuery,
  success: { status: 200, description: 'refunds', schema: Page(Refund) }, errors: [400, 401, 403],
});

export const adminListRefunds = adminWalletRoute('get /api/admin/refunds', { id: 'adminListRefunds', auth: 'admin', permission: 'recharges.read',
  summary: 'Refunds for the back office, newest first',
  description: 'Filters `status`, `kind`, `user_id`, `payment_id`; cursor pages.',
  query: PageQuery.extend({
    status: RefundStatus.optional(),
    kind: RefundKind.optional(),
    user_id: z.string().max(100).optional(),
    payment_id: z.string().max(100).optional(),
  }).strict(),
  success: { status: 200, description: 'refunds', schema: Page(Refund) }, errors: [400, 401, 403],
});

export const StartRefundBody = z
  .object({
    payment_id: z.string().max(100),
    kind: RefundKind.exclude(['user_request']),
    reason: z.string().trim().min(1).max(500),
  })
  .strict();

export const startRefund = adminWalletRoute('post /api/admin/refunds', { id: 'startRefund', auth: 'admin', permission: 'recharges.manage',
  summary: 'Finance returns the money of a recharge that arrived late or with another amount',
  description:
    'Audited, approved at once and sent. `late_success`: the recharge was credited after it had been given up; its whole amount ' +
    'moves from the user’s available balance (409 INSUFFICIENT_BALANCE when spent) less what is already refunded. ' +
    '`amount_mismatch`: the recharge was never credited and its provider says another amount was paid; that amount, taken ' +
    'from the gateway clearing account, is returned (409 INVALID_STATE when the provider says nothing was paid or the recharge is ' +
    'credited; once per recharge). Unknown recharge → 404. ' + STATES,
  body: StartRefundBody,
  success: { status: 201, description: 'the refund', schema: Refund }, errors: [400, 401, 403, 404, 409, 422, 502],
});

export const approveRefund = adminWalletRoute('post /api/admin/refunds/{id}/approve', { id: 'approveRefund', auth: 'admin', permission: 'recharges.manage',
  summary: 'Approve a user’s refund: the amount is held and the refund sent',
  description:
    'Audited. The refund goes out once (the refund id is its `out_request_no` / `out_refund_no`); the answer shows `processing` ' +
    'until the provider says refunded or failed. Not `requested` → 409 INVALID_STATE; the available balance short of it → 409 ' +
    'INSUFFICIENT_BALANCE (nothing changes); unknown → 404.',
  ...changeById(EmptyBody, { description: 'the refund', schema: Refund }),
});

export const rejectRefund = adminWalletRoute('post /api/admin/refunds/{id}/reject', { id: 'rejectRefund', auth: 'admin', permission: 'recharges.manage',
  summary: 'Reject a user’s refund with a reason; nothing was held',
  description: 'Audited. Not `requested` → 409 INVALID_STATE; unknown → 404.',
  ...changeById(ReasonBody, { description: 'the refund', schema: Refund }),
});

export const SandboxRefundResult = z.object({ refund_id: Id, status: z.enum(['succeeded', 'failed']) });

export const completeSandboxRefund = paymentRoute('post /api/payments/sandbox/refunds/{id}/complete', { id: 'completeSandboxRefund', auth: 'public', token: 'ignored',
  summary: 'Development only: the tester marks a sandbox refund done or failed',
  description:
    'Only with PAYGATE_PROVIDER=sandbox (404 otherwise). Records the outcome the sandbox answers when the wallet next asks about ' +
    'the refund. A refund already marked → 409 INVALID_STATE; one the sandbox never received → 404.',
  params: IdParams,
  body: SandboxCompleteBody,
  success: { status: 200, description: 'what the sandbox recorded', schema: SandboxRefundResult }, errors: [400, 404, 409],
});

export const ReconciliationStatus = z.enum(['clean', 'findings']);
export const FindingKind = z.enum(['missing_in_ledger', 'missing_in_bill', 'amount_mismatch', 'fee_mismatch']).openapi({
  description:
    '`missing_in_ledger`: a bill line the ledger has no movement for; `missing_in_bill`: a ledger movement of the day the bill ' +
    'lacks; `amount_mismatch`: both have it, with other amounts; `fee_mismatch`: the fees the bill charges differ from the fees ' +
    'of its lines',
});
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).openapi({ description: 'a day in Asia/Shanghai', example: '2026-11-26' });

export const ReconciliationRun = z
  .object({
    id: Id,
    provider: PaymentProvider,
    day: Day,
    status: ReconciliationStatus,
    bill_lines: z.number().int().min(0),
    ledger_lines: z.number().int().min(0),
    matched: z.number().int().min(0),
    findings: z.number().int().min(0),
    bill_total: SignedMoney.openapi({ description: 'payments less refunds and transfers on the bill, in fen' }),
    ledger_total: SignedMoney.openapi({ description: 'the same sum over the ledger’s movements of the day, in fen' }),
    fee_total: Money,
    created_at: Timestamp,
  })
  .openapi('ReconciliationRun');

export const ReconciliationFinding = z
  .object({
    id: Id,
    kind: FindingKind,
    line_kind: z.enum(['payment', 'refund', 'transfer', 'fee']),
    reference: z.string().nullable().openapi({ description: 'our id: the payment, refund or withdrawal' }),
    provider_id: z.string().nullable(),
    bill_amount: Money.nullable(),
    ledger_amount: Money.nullable(),
  })
  .openapi('ReconciliationFinding');

export const runReconciliation = adminWalletRoute('post /api/admin/reconciliations', { id: 'runReconciliation', auth: 'admin', permission: 'recharges.manage',
  summary: 'Reconcile one provider’s bill of one day with the ledger now',
  description:
    'Once per (provider, day): a day already reconciled answers its run unchanged, without a second alert. A run with findings ' +
    'raises an `ops.alert`. The provider not enabled or without bills → 400 CHANNEL_UNAVAILABLE; its bill not published yet → ' +
    '409 BILL_NOT_READY; a day not over yet, or no calendar day → 400 VALIDATION_FAILED; the provider unreachable → 502.',
  body: z.object({ provider: PaymentProvider, day: Day }).strict(),
  success: { status: 200, description: 'the run', schema: ReconciliationRun }, errors: [400, 401, 403, 409, 422, 502],
});

export const listReconciliations = adminWalletRoute('get /api/admin/reconciliations', { id: 'listReconciliations', auth: 'admin', permission: 'ledger.read',
  summary: 'Reconciliation runs, newest first',
  description: 'Filters `provider`, `status`; cursor pages.',
  query: PageQuery.extend({ provider: PaymentProvider.optional(), status: ReconciliationStatus.optional() }).strict(),
  success: { status: 200, description: 'runs', schema: Page(ReconciliationRun) }, errors: [400, 401, 403],
});

export const getReconciliation = adminWalletRoute('get /api/admin/reconciliations/{id}', { id: 'getReconciliation', auth: 'admin', permission: 'ledger.read',
  summary: 'One reconciliation run and its findings',
  params: IdParams,
  success: { status: 200, description: 'the run', schema: ReconciliationRun.extend({ items: z.array(ReconciliationFinding) }) }, errors: [400, 401, 403, 404],
});

export const refundRoutes = [
  requestRefund,
  listRefunds,
  adminListRefunds,
  startRefund,
  approveRefund,
  rejectRefund,
  completeSandboxRefund,
  runReconciliation,
  listReconciliations,
  getReconciliation,
];
