import { OrderStatus } from '@market/contracts';
import { approvalRefusal, planReveal, type RevealRequestFacts, type RevealRequestStatus } from '../src/domain/plan-reveal';

const ORDER = '0193a000-0000-7000-8000-0000000000aa';
const OTHER_ORDER = '0193a000-0000-7000-8000-0000000000ab';
const ME = '0193a000-0000-7000-8000-000000000001';
const SECOND = '0193a000-0000-7000-8000-000000000002';
const MARKER = '0193a000-0000-7000-8000-000000000003';

const REQUESTS: Record<string, RevealRequestFacts | null> = {
  none: null,
  mine_pending: { order_id: ORDER, requested_by: ME, status: 'pending' },
  mine_approved: { order_id: ORDER, requested_by: ME, status: 'approved' },
  mine_used: { order_id: ORDER, requested_by: ME, status: 'used' },
  others_approved: { order_id: ORDER, requested_by: SECOND, status: 'approved' },
  other_orders_approved: { order_id: OTHER_ORDER, requested_by: ME, status: 'approved' },
};

/**
 * Every cell in which an admin may reveal an order's handoff content, by hand (ADR 0056): a
 * disputed or abnormal order, with an open dispute on it, or with the caller's own approved request
 * for it. `state dispute request → via`; every other cell is refused.
 */
const ALLOWED_REVEALS = `
disputed  open  none                   open_dispute
disputed  open  mine_pending           open_dispute
disputed  open  mine_approved          open_dispute
disputed  open  mine_used              open_dispute
disputed  open  others_approved        open_dispute
disputed  open  other_orders_approved  open_dispute
disputed  none  mine_approved          approved_request
abnormal  open  none                   open_dispute
abnormal  open  mine_pending           open_dispute
abnormal  open  mine_approved          open_dispute
abnormal  open  mine_used              open_dispute
abnormal  open  others_approved        open_dispute
abnormal  open  other_orders_approved  open_dispute
abnormal  none  mine_approved          approved_request
`
  .trim()
  .split('\n')
  .map((line) => line.trim().split(/\s+/).join(' '));

/** Every (state, request status, approver) cell in which an approval goes through, by hand. */
const ALLOWED_APPROVALS = ['disputed pending second', 'abnormal pending second'];

describe('planReveal and approvalRefusal, cell by cell', () => {
  const states = OrderStatus.options;

  it('lets an admin reveal in exactly the listed cells, and refuses every other with its code', () => {
    const allowed: string[] = [];
    for (const status of states) {
      for (const dispute of ['open', 'none'] as const) {
        for (const [name, request] of Object.entries(REQUESTS)) {
          const outcome = planReveal({ id: ORDER, status, marked_abnormal_by: MARKER }, dispute === 'open', request, ME);
          if (outcome instanceof Error) {
            expect({ status, dispute, name, code: outcome.code }).toEqual({
              status,
              dispute,
              name,
              code: status === 'disputed' || status === 'abnormal' ? 'REVEAL_APPROVAL_REQUIRED' : 'INVALID_STATE',
            });
          } else allowed.push(`${status} ${dispute} ${name} ${outcome.via}`);
        }
      }
    }
    expect(allowed.sort()).toEqual([...ALLOWED_REVEALS].sort());
  });

  it('lets only a second admin, not the requester nor the one who marked the order abnormal, approve a pending request', () => {
    const allowed: string[] = [];
    const approvers = { requester: ME, marker: MARKER, second: SECOND };
    for (const status of states) {
      for (const requestStatus of ['pending', 'approved', 'used'] as RevealRequestStatus[]) {
        for (const [who, approver] of Object.entries(approvers)) {
          const refusal = approvalRefusal(
            { id: ORDER, status, marked_abnormal_by: MARKER },
            { order_id: ORDER, requested_by: ME, status: requestStatus },
            approver,
          );
          if (refusal === null) {
            allowed.push(`${status} ${requestStatus} ${who}`);
            continue;
          }
          const expected = who === 'second' ? 'INVALID_STATE' : 'REVEAL_APPROVER_INVOLVED';
          expect({ status, requestStatus, who, code: refusal.code }).toEqual({ status, requestStatus, who, code: expected });
        }
      }
    }
    expect(allowed.sort()).toEqual([...ALLOWED_APPROVALS].sort());
  });

  it('lets a second admin approve a request the marker made, and never the marker', () => {
    const request: RevealRequestFacts = { order_id: ORDER, requested_by: MARKER, status: 'pending' };
    expect(approvalRefusal({ id: ORDER, status: 'abnormal', marked_abnormal_by: MARKER }, request, SECOND)).toBeNull();
    expect(approvalRefusal({ id: ORDER, status: 'abnormal', marked_abnormal_by: MARKER }, request, MARKER)?.code).toBe('REVEAL_APPROVER_INVOLVED');
  });
});
