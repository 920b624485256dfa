import { Conflict, DomainError, failureKind, InvalidInput, InvalidState, NotFound } from '@market/shared/errors';
import { problemOfDomainError } from '@market/shared/http';
import {
  ChannelUnavailable,
  ChargeExpired,
  InsufficientBalance,
  NotificationAmountMismatch,
  NotificationNotJson,
  NotificationSignatureInvalid,
  PayeeFrozen,
  PayeeFrozenSinceRequest,
  PayeeNameMismatch,
  ProviderFailed,
  RealNameRequired,
  WithdrawalBelowMinimum,
  WithdrawalDailyLimit,
  RefundExceedsPayment,
  BillNotReady,
} from '../src/domain/errors';
import { walletErrorStatuses } from '../src/http/error-statuses';

/** What the API answered for each refusal when it was still thrown as an HTTP problem. */
const ANSWERED: Array<[DomainError, { status: number; code: string; title: string; detail: string }]> = [
  [new ChannelUnavailable('withdrawals to alipay are not enabled'), { status: 400, code: 'CHANNEL_UNAVAILABLE', title: 'Bad request', detail: 'withdrawals to alipay are not enabled' }],
  [new PayeeFrozen(), { status: 403, code: 'USER_FROZEN', title: 'Forbidden', detail: 'this account is frozen' }],
  [new PayeeFrozenSinceRequest(), { status: 409, code: 'USER_FROZEN', title: 'Conflict', detail: 'the user is frozen; the withdrawal cannot be paid out now' }],
  [new RealNameRequired(), { status: 403, code: 'REALNAME_REQUIRED', title: 'Forbidden', detail: 'withdrawals need a verified real name' }],
  [new PayeeNameMismatch(), { status: 422, code: 'PAYEE_NAME_MISMATCH', title: 'Unprocessable request', detail: 'the payee name must be your verified real name' }],
  [new WithdrawalBelowMinimum(1000), { status: 422, code: 'WITHDRAWAL_BELOW_MINIMUM', title: 'Unprocessable request', detail: 'a withdrawal is at least 1000 fen' }],
  [
    new WithdrawalDailyLimit(50000, 49000),
    { status: 422, code: 'WITHDRAWAL_DAILY_LIMIT', title: 'Unprocessable request', detail: 'at most 50000 fen a day; 49000 already requested today' },
  ],
  [new InsufficientBalance(10, 300, 'withdraw'), { status: 409, code: 'INSUFFICIENT_BALANCE', title: 'Conflict', detail: 'available balance 10 is less than the 300 to withdraw' }],
  [new InsufficientBalance(0, 500, 'pay'), { status: 409, code: 'INSUFFICIENT_BALANCE', title: 'Conflict', detail: 'available balance 0 is less than the 500 to pay' }],
  [new ChargeExpired(), { status: 409, code: 'CHARGE_EXPIRED', title: 'Conflict', detail: 'the charge arrived after its deadline; pay again' }],
  [new NotificationSignatureInvalid('missing Paygate-Signature'), { status: 400, code: 'SIGNATURE_INVALID', title: 'Bad request', detail: 'missing Paygate-Signature' }],
  [new NotificationNotJson(), { status: 400, code: 'MALFORMED_JSON', title: 'Bad request', detail: 'request body is not valid JSON' }],
  [new NotificationAmountMismatch(), { status: 422, code: 'PAYGATE_REJECTED', title: 'Unprocessable request', detail: 'the amount differs from the payment; nothing was credited' }],
  [new ProviderFailed('Alipay', 'open the payment'), { status: 502, code: 'UPSTREAM_UNAVAILABLE', title: 'Upstream unavailable', detail: 'Alipay could not open the payment; try again shortly' }],
  [
    new ProviderFailed('WeChat Pay', 'close the payment'),
    { status: 502, code: 'UPSTREAM_UNAVAILABLE', title: 'Upstream unavailable', detail: 'WeChat Pay could not close the payment; try again shortly' },
  ],
  [new InsufficientBalance(200, 500, 'refund'), { status: 409, code: 'INSUFFICIENT_BALANCE', title: 'Conflict', detail: 'available balance 200 is less than the 500 to refund' }],
  [
    new RefundExceedsPayment(2_000),
    { status: 422, code: 'REFUND_EXCEEDS_PAYMENT', title: 'Unprocessable request', detail: 'at most 2000 fen of this recharge can still be refunded' },
  ],
  [new BillNotReady('alipay', '2026-11-26'), { status: 409, code: 'BILL_NOT_READY', title: 'Conflict', detail: 'alipay has no bill for 2026-11-26 yet; try again later' }],
  [new NotFound('withdrawal not found'), { status: 404, code: 'NOT_FOUND', title: 'Not found', detail: 'withdrawal not found' }],
  [new InvalidState('the withdrawal is paid; it cannot be cancelled'), { status: 409, code: 'INVALID_STATE', title: 'Conflict', detail: 'the withdrawal is paid; it cannot be cancelled' }],
  [
    new Conflict('this order was already charged with another renter, owner or amount'),
    { status: 409, code: 'CONFLICT', title: 'Conflict', detail: 'this order was already charged with another renter, owner or amount' },
  ],
];

describe("the wallet's error statuses", () => {
  it.each(ANSWERED.map(([err, expected]) => ({ name: err.name, err, expected })))('answers $name $expected.code as it always has', ({ err, expected }) => {
    const problem = problemOfDomainError(err, walletErrorStatuses)!;
    expect({ status: problem.status, code: problem.code, title: problem.title, detail: problem.message }).toEqual(expected);
  });

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
