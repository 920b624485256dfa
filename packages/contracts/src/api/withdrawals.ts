import { EmptyBody, Id, IdempotencyHeaders, IdParams, Page, PageQuery, PositiveMoney, ReasonBody, Timestamp } from '../common';
import { z } from '../zod';
import { routesOf } from './route';
import { changeById } from './change-by-id';

const walletRoute = routesOf('wallet', { tags: ['wallet'] });
const adminWalletRoute = routesOf('wallet', { tags: ['admin-wallet'] });

export const WithdrawalStatus = z.enum(['pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled', 'reversed']);
export const WithdrawalChannel = z.enum(['alipay', 'wechatpay']);

/** A withdrawal as events announce it. */
export const WithdrawalFacts = z.object({
  id: Id,
  user_id: Id,
  amount: PositiveMoney,
  channel: WithdrawalChannel,
  payee_account_masked: z.string().openapi({ description: 'the payee account, masked' }),
  payee_name_masked: z.string().openapi({ description: 'the payee name, masked' }),
  status: WithdrawalStatus,
  reason: z.string().nullable().openapi({ description: 'why it was rejected, or why the transfer failed or was returned' }),
  created_at: Timestamp,
  decided_at: Timestamp.nullable(),
  paid_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
});

/** A withdrawal as the API shows it. */
export const Withdrawal = WithdrawalFacts.extend({
  payee_confirmation: z
    .object({
      channel: WithdrawalChannel,
      package_info: z.string().openapi({ description: 'WeChat’s `package_info`, to open WeChat’s confirm-receipt page with' }),
    })
    .nullable()
    .openapi({
      description:
        'Set while a `processing` transfer waits for the payee to confirm the receipt in the provider’s app (WeChat’s ' +
        '`WAIT_USER_CONFIRM`), on the owner’s own views only; null otherwise (and in the back office’s list).',
    }),
}).openapi('Withdrawal');

export const WithdrawalRequestBody = z
  .object({
    amount: PositiveMoney,
    channel: WithdrawalChannel,
    payee_account: z
      .string()
      .trim()
      .min(3)
      .max(100)
      .openapi({ description: 'alipay: the Alipay login id (phone or email); wechatpay: the payee’s openid under the platform’s app' }),
    payee_name: z.string().trim().min(1).max(50).openapi({ description: 'must be the caller’s verified real name' }),
  })
  .strict();

const STATES =
  '`pending_review` → `processing` (approved, or at once below `withdrawal.auto_approve_below`) → `paid` or `failed`; ' +
  '`pending_review` → `rejected` (back office) or `cancelled` (the requester); `paid` → `reversed` when the provider ' +
  'returns a paid transfer (Alipay’s `REFUND`). The amount is held from the moment of the request; `paid` takes it out of ' +
  'the platform, `failed`, `rejected`, `cancelled` and `reversed` give it back to the available balance. A transfer whose ' +
  'outcome is unknown stays `processing` and is asked about until final (or resolved by finance).';

export const requestWithdrawal = walletRoute('post /api/wallet/withdrawals', { id: 'requestWithdrawal', auth: 'user',
  summary: 'Withdraw money from the wallet to an Alipay account or a WeChat balance',
  description:
    'Only a user with a verified real name, paying an account in that name (`payee_name` must be it: else 422 ' +
    'PAYEE_NAME_MISMATCH; unverified: 403 REALNAME_REQUIRED; frozen: 403 USER_FROZEN). Limits from system configs: at least ' +
    '`withdrawal.min_amount` (422 WITHDRAWAL_BELOW_MINIMUM), at most `withdrawal.daily_limit` per UTC day counting every ' +
    'request not rejected, cancelled or failed (422 WITHDRAWAL_DAILY_LIMIT). More than the available balance → 409 ' +
    'INSUFFICIENT_BALANCE. The amount moves to a withdrawal hold in the same transaction. ' + STATES + ' Honours Idempotency-Key.',
  headers: IdempotencyHeaders,
  body: WithdrawalRequestBody,
  success: { status: 201, description: 'the withdrawal', schema: Withdrawal }, errors: [400, 401, 403, 409, 422, 503],
});

export const listWithdrawals = walletRoute('get /api/wallet/withdrawals', { id: 'listWithdrawals', auth: 'user',
  summary: 'The caller’s withdrawals, newest first',
  query: PageQuery,
  success: { status: 200, description: 'withdrawals', schema: Page(Withdrawal) }, errors: [400, 401, 403],
});

export const cancelWithdrawal = walletRoute('post /api/wallet/withdrawals/{id}/cancel', { id: 'cancelWithdrawal', auth: 'user',
  summary: 'Cancel one’s own withdrawal still pending review; the hold goes back to available',
  description: 'Another user’s or an unknown withdrawal → 404; one no longer `pending_review` → 409 INVALID_STATE.',
  ...changeById(EmptyBody, { description: 'the cancelled withdrawal', schema: Withdrawal }),
});

export const adminListWithdrawals = adminWalletRoute('get /api/admin/withdrawals', { id: 'adminListWithdrawals', auth: 'admin', permission: 'withdrawals.read',
  summary: 'Withdrawals for the back office, newest first',
  description: 'Filters `status`, `user_id`, `channel`; cursor pages.',
  query: PageQuery.extend({
    status: WithdrawalStatus.optional(),
    channel: WithdrawalChannel.optional(),
    user_id: z.string().max(100).optional(),
  }).strict(),
  success: { status: 200, description: 'withdrawals', schema: Page(Withdrawal) }, errors: [400, 401, 403],
});

export const approveWithdrawal = adminWalletRoute('post /api/admin/withdrawals/{id}/approve', { id: 'approveWithdrawal', auth: 'admin', permission: 'withdrawals.manage',
  summary: 'Approve a withdrawal: the transfer is sent',
  description:
    'Audited. The transfer goes out once (the withdrawal id is its `out_biz_no`); the answer shows `processing` until the ' +
    'provider says paid or failed, then `paid` or `failed` (an unknown outcome is asked about until final). ' +
    'Not `pending_review` → 409 INVALID_STATE; the user frozen since the request → 409 USER_FROZEN; unknown → 404.',
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the withdrawal', schema: Withdrawal }, errors: [400, 401, 403, 404, 409, 503],
});

export const rejectWithdrawal = adminWalletRoute('post /api/admin/withdrawals/{id}/reject', { id: 'rejectWithdrawal', auth: 'admin', permission: 'withdrawals.manage',
  summary: 'Reject a withdrawal with a reason; the hold goes back to available',
  description: 'Audited. Not `pending_review` → 409 INVALID_STATE; unknown → 404.',
  ...changeById(ReasonBody, { description: 'the withdrawal', schema: Withdrawal }),
});

export const WithdrawalResolutionBody = z
  .object({
    outcome: z.enum(['paid', 'failed']),
    evidence: z
      .object({
        provider_transfer_id: z
          .string()
          .trim()
          .min(1)
          .max(100)
          .openapi({ description: 'the provider’s id of the transfer (Alipay `order_id`, WeChat `transfer_bill_no`), or the ticket that says none exists' }),
        bill_line: z.string().trim().min(1).max(1000).openapi({ description: 'the line of the provider’s bill (or its support’s answer) the decision rests on' }),
      })
      .strict(),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

export const resolveWithdrawal = adminWalletRoute('post /api/admin/withdrawals/{id}/resolve', { id: 'resolveWithdrawal', auth: 'admin', permission: 'withdrawals.manage',
  summary: 'Settle by hand a withdrawal whose transfer outcome stayed unknown, on the provider’s evidence',
  description:
    'Only for a `processing` withdrawal (else 409 INVALID_STATE). `paid`: the hold leaves the platform as for a paid ' +
    'transfer; `failed`: the provider is asked once more first, and if it says paid the resolution is refused (409 ' +
    'PROVIDER_SAYS_PAID) and the withdrawal marked paid; if it cannot answer → 502 UPSTREAM_UNAVAILABLE, if the payee can ' +
    'still confirm it → 409 PAYEE_CAN_STILL_CONFIRM; otherwise the hold goes back to the available balance. Audited ' +
    'with the evidence; announced as `withdrawal.paid` or `withdrawal.failed`. Unknown → 404.',
  params: IdParams,
  body: WithdrawalResolutionBody,
  success: { status: 200, description: 'the withdrawal', schema: Withdrawal }, errors: [400, 401, 403, 404, 409, 502, 503],
});

export const withdrawalRoutes = [requestWithdrawal, listWithdrawals, cancelWithdrawal, adminListWithdrawals, approveWithdrawal, rejectWithdrawal, resolveWithdrawal];
