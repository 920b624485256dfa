import { failureKind, InvalidInput } from '@market/shared/errors';
import { problemOfDomainError } from '@market/shared/http';
import {
  ChargeExpired,
  InsufficientBalance,
  NotificationAmountMismatch,
  NotificationSignatureInvalid,
  PayeeFrozen,
  PayeeFrozenSinceRequest,
  ProviderFailed,
  RefundExceedsPayment,
  BillNotReady,
} from '../src/domain/errors';
import { walletErrorStatuses } from '../src/http/error-statuses';

describe("the wallet's refusals at the edge", () => {
  it('answers an amount past its rules with the field at fault', () => {
    const problem = problemOfDomainError(new InvalidInput([{ path: 'amount', message: 'must be at least 100 fen' }]), walletErrorStatuses)!;
    expect(problem.toBody('/api/wallet/recharge/pay')).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      detail: 'request failed validation',
      errors: [{ path: 'amount', message: 'must be at least 100 fen' }],
    });
  });

  it('tells what may pass later from what never will', () => {
    expect([new InsufficientBalance(0, 1, 'pay'), new PayeeFrozenSinceRequest(), new ProviderFailed('Alipay', 'open the payment'), new BillNotReady('alipay', '2026-11-26')].map(failureKind)).toEqual([
      'transient',
      'transient',
      'transient',
      'transient',
    ]);
    expect(failureKind(new RefundExceedsPayment(0))).toBe('permanent');
    expect([new ChargeExpired(), new NotificationAmountMismatch(), new NotificationSignatureInvalid('x'), new PayeeFrozen()].map(failureKind)).toEqual([
      'permanent',
      'permanent',
      'permanent',
      'permanent',
    ]);
  });
});
