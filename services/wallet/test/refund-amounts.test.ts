import { DomainError } from '@market/shared/errors';
import { refundableError, refundHoldAccounts, startedRefundAmount } from '../src/domain/refund';

const codeOr = (v: number | DomainError | null) => (v instanceof DomainError ? v.code : v);

describe('what a refund may return', () => {
  it('a user’s request: at most what the recharge paid less its live refunds', () => {
    expect(codeOr(refundableError(700, 1_000, 300))).toBeNull();
    expect(codeOr(refundableError(701, 1_000, 300))).toBe('REFUND_EXCEEDS_PAYMENT');
    expect(refundableError(1, 1_000, 1_000)?.message).toBe('at most 0 fen of this recharge can still be refunded');
  });

  it('a late success: what was credited and is not refunded yet', () => {
    expect(codeOr(startedRefundAmount('late_success', { status: 'succeeded', amount: 2_500 }, 500, null))).toBe(2_000);
    expect(codeOr(startedRefundAmount('late_success', { status: 'succeeded', amount: 2_500 }, 2_500, null))).toBe('REFUND_EXCEEDS_PAYMENT');
    expect(codeOr(startedRefundAmount('late_success', { status: 'expired', amount: 2_500 }, 0, null))).toBe('INVALID_STATE');
  });

  it('another amount paid: what the provider says, once, and never for a credited recharge', () => {
    expect(codeOr(startedRefundAmount('amount_mismatch', { status: 'failed', amount: 1_000 }, 0, 1_234))).toBe(1_234);
    expect(codeOr(startedRefundAmount('amount_mismatch', { status: 'failed', amount: 1_000 }, 1_234, 1_234))).toBe('INVALID_STATE');
    expect(codeOr(startedRefundAmount('amount_mismatch', { status: 'succeeded', amount: 1_000 }, 0, 1_234))).toBe('INVALID_STATE');
  });
});

describe('where a refund’s money moves', () => {
  const refund = { id: 'r1', user_id: 'u1', provider: 'alipay' };
  const legs = (kind: 'user_request' | 'amount_mismatch') =>
    (['take', 'pay_out', 'release'] as const).map((move) => {
      const t = refundHoldAccounts({ ...refund, kind }, move);
      return [t.from.key, t.to.key, t.bizType];
    });

  it('credited money leaves the user’s balance and comes back to it', () => {
    expect(legs('user_request')).toEqual([
      ['user:u1', 'refund:r1', 'refund_hold'],
      ['refund:r1', 'refunded:alipay', 'refund_payout'],
      ['refund:r1', 'user:u1', 'refund_release'],
    ]);
  });

  it('money never credited leaves the gateway clearing account and comes back to it', () => {
    expect(legs('amount_mismatch')).toEqual([
      ['gateway:clearing', 'refund:r1', 'refund_hold'],
      ['refund:r1', 'refunded:alipay', 'refund_payout'],
      ['refund:r1', 'gateway:clearing', 'refund_release'],
    ]);
  });
});
