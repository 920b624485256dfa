import { Conflict, DependencyFailed, InvalidInput, NotFound, PermanentError, RateLimited, RuleBroken, TransientError } from '../src/errors';
import { problemOfDomainError, RemoteRefusal } from '../src/http/error-statuses';

const statuses = { INSUFFICIENT_BALANCE: 422, ORDER_CHANGED: { status: 409, title: 'Order changed' } } as const;

describe('the HTTP edge answers a domain error by its code', () => {
  it('answers the kit refusals with the statuses the API has always used', () => {
    expect(problemOfDomainError(new NotFound('order not found'), statuses)).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'order not found', title: 'Not found' });
    expect(problemOfDomainError(new Conflict('taken'), statuses)).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(problemOfDomainError(new InvalidInput([{ path: 'body.amount', message: 'too small' }]), statuses)).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'body.amount', message: 'too small' }],
    });
  });

  it("answers a service's own codes from its table, title included", () => {
    expect(problemOfDomainError(new RuleBroken('INSUFFICIENT_BALANCE', 'balance 10 < 20'), statuses)).toMatchObject({ status: 422, code: 'INSUFFICIENT_BALANCE', title: 'Unprocessable request' });
    expect(problemOfDomainError(new Conflict('moved on', 'ORDER_CHANGED'), statuses)).toMatchObject({ status: 409, title: 'Order changed' });
  });

  it('names the configured limit a refusal hit in the problem body', () => {
    const problem = problemOfDomainError(new TransientError('ORDER_CHANGED', 'a new renter may hold at most 2 active orders', { limit: { name: 'renter.new_max_active', value: 2 } }), statuses);
    expect(problem?.toBody('/api/orders', 'r-1')).toMatchObject({ status: 409, code: 'ORDER_CHANGED', limit: { name: 'renter.new_max_active', value: 2 } });
    expect(problemOfDomainError(new NotFound('order not found'), statuses)?.toBody('/api/orders/x')).not.toHaveProperty('limit');
  });

  it('gives a code no table knows no status, so it is answered as our fault', () => {
    expect(problemOfDomainError(new PermanentError('NOBODY_MAPPED_THIS', 'x'), statuses)).toBeNull();
  });

  it('tells when to try again, and which way a dependency failed', () => {
    expect(problemOfDomainError(new RateLimited(2.2), statuses)).toMatchObject({ status: 429, headers: { 'Retry-After': '3' } });
    expect(problemOfDomainError(new DependencyFailed('unreachable'), statuses)?.status).toBe(503);
    expect(problemOfDomainError(new DependencyFailed('bad_answer'), statuses)?.status).toBe(502);
  });

  it("passes a neighbour's refusal on as the neighbour answered it, with its kind read from the status", () => {
    const refusal = new RemoteRefusal(422, 'LISTING_UNAVAILABLE', 'listing is off the shelf');
    expect(problemOfDomainError(refusal, statuses)).toMatchObject({ status: 422, code: 'LISTING_UNAVAILABLE' });
    expect(refusal.kind).toBe('permanent');
    expect(new RemoteRefusal(409, 'ORDER_CHANGED', 'raced').kind).toBe('transient');
  });
});
