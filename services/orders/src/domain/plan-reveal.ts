import { InvalidState, type DomainError } from '@market/shared/errors';
import type { Planned } from '@market/shared/planning';
import { RevealApprovalRequired, RevealApproverInvolved } from './errors';
import { revealAllowed } from './handoff-visibility';
import type { OrderState } from './order-state';

export type RevealRequestStatus = 'pending' | 'approved' | 'used';

/** A reveal request as the rules read it. */
export interface RevealRequestFacts {
  order_id: string;
  requested_by: string;
  status: RevealRequestStatus;
}

/** The order as the reveal rules read it. */
export interface RevealOrderFacts {
  id: string;
  status: OrderState;
  marked_abnormal_by: string | null;
}

/** How a reveal is allowed: by the order's open dispute, or by the caller's approved request (used up by it). */
export type RevealGrant = { via: 'open_dispute' } | { via: 'approved_request' };

/**
 * Whether `adminId` may reveal the order's handoff content now (ADR 0033, ADR 0056). Only while the
 * order is disputed or abnormal; with an open dispute on the order the admin who settles it reveals
 * alone; without one (an order held abnormal, by the admin asking or anyone) it takes the caller's
 * own request for this order that a second admin approved and no reveal used yet.
 */
export function planReveal(
  order: RevealOrderFacts,
  openDispute: boolean,
  request: RevealRequestFacts | null,
  adminId: string,
): Planned<RevealGrant> {
  if (!revealAllowed(order.status)) return new InvalidState(`handoff content is revealed only for an order in dispute or abnormal; this one is ${order.status}`);
  if (openDispute) return { via: 'open_dispute' };
  if (!request) return new RevealApprovalRequired('this order has no open dispute: its reveal needs a reveal request another admin approved');
  if (request.order_id !== order.id || request.requested_by !== adminId) return new RevealApprovalRequired('the reveal request is not yours for this order');
  if (request.status === 'pending') return new RevealApprovalRequired('the reveal request waits for another admin’s approval');
  if (request.status === 'used') return new RevealApprovalRequired('the reveal request was used already; ask again');
  return { via: 'approved_request' };
}

/** Whether a reveal request may be made for the order now: the states a reveal is for. */
export function revealRequestRefusal(order: RevealOrderFacts): DomainError | null {
  return revealAllowed(order.status) ? null : new InvalidState(`handoff content is revealed only for an order in dispute or abnormal; this one is ${order.status}`);
}

/**
 * Whether `approverId` may approve the request: a second admin, neither the requester nor the one
 * who marked the order abnormal (who could otherwise mark an order and have its credentials shown
 * by a request of their own making), on a pending request of an order a reveal is still for.
 */
export function approvalRefusal(order: RevealOrderFacts, request: RevealRequestFacts, approverId: string): DomainError | null {
  if (request.requested_by === approverId) return new RevealApproverInvolved('an admin cannot approve their own reveal request');
  if (order.marked_abnormal_by === approverId) return new RevealApproverInvolved('the admin who marked the order abnormal cannot approve revealing it');
  if (request.status !== 'pending') return new InvalidState(`the reveal request is ${request.status} already`);
  return revealRequestRefusal(order);
}
