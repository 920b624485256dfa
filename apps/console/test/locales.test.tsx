import { describe, expect, it } from 'vitest';
import {
  AdminStatus,
  ArbitrationResult,
  AuditActorType,
  AuditResult,
  DisputeStatus,
  DisputeType,
  FindingKind,
  LedgerBizType,
  ListingStatus,
  OpenUploadOutcome,
  OrderStatus,
  PartyRole,
  PaymentProvider,
  RealnameStatus,
  ReconciliationStatus,
  RefundKind,
  RefundStatus,
  RatingDirection,
  RatingTag,
  RevealRequestStatus,
  ReviewStatus,
  WithdrawalStatus,
} from '@market/contracts';
import zhCN from '../src/locales/zh-CN.json';
import en from '../src/locales/en.json';
import type { Enum } from '../src/i18n';

/** Each kind of code the console shows with `<Status>`, and the values the contracts say the API answers. */
const CODES: Partial<Record<Enum, readonly string[]>> = {
  listing: ListingStatus.options,
  review: ReviewStatus.options,
  order: OrderStatus.options,
  disputeType: DisputeType.options,
  dispute: DisputeStatus.options,
  ruling: ArbitrationResult.options,
  withdrawal: WithdrawalStatus.options,
  // withdrawals pay to alipay and wechatpay; refunds and reconciliation runs also name the sandbox
  channel: PaymentProvider.options,
  biz: LedgerBizType.options,
  realname: RealnameStatus.options,
  admin: AdminStatus.options,
  upload: OpenUploadOutcome.options,
  party: PartyRole.options,
  auditResult: AuditResult.options,
  actor: AuditActorType.options,
  refund: RefundStatus.options,
  refundKind: RefundKind.options,
  reconciliation: ReconciliationStatus.options,
  finding: FindingKind.options,
  revealRequest: RevealRequestStatus.options,
  ratingDirection: RatingDirection.options,
  ratingTag: RatingTag.options,
};

describe('the console’s translations of the API’s codes', () => {
  it.each([
    ['zh-CN', zhCN],
    ['en', en],
  ])('%s names every value the contracts allow, so no screen shows a raw code', (_, texts) => {
    const status = texts.status as Record<string, Record<string, string>>;
    const missing = Object.entries(CODES).flatMap(([kind, values]) => values!.filter((v) => !status[kind]?.[v]).map((v) => `status.${kind}.${v}`));
    expect(missing).toEqual([]);
  });
});
