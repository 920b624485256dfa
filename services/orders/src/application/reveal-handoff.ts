import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { auditRefusal, recordAudit } from '@market/shared/events';
import { NotFound, type DomainError } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { approvalRefusal, planReveal, revealRequestRefusal } from '../domain/plan-reveal';
import { latestDisputeOf } from '../persistence/dispute-repository';
import { handoffRecordsOf } from '../persistence/handoff-repository';
import {
  approveRevealRequest,
  findRevealRequest,
  insertRevealRequest,
  revealRequestsOf,
  useRevealRequest,
} from '../persistence/reveal-request-repository';
import { existingOrder } from './admin-read-orders';
import type { OrdersDeps } from './deps';
import { handoffRecordViews } from './handoff-record-view';
import { toRevealRequestView } from './reveal-request-view';

const REVEAL_AUDIT = 'order.handoff_records.reveal';

/** A refusal written to the audit log, then thrown: every refused reveal, request or approval is on record. */
async function refuse(deps: OrdersDeps, identity: AdminIdentity, entry: { action: string; biz_type: string; biz_id: string; detail: Record<string, unknown> }, refusal: DomainError): Promise<never> {
  await auditRefusal(deps.db, deps.events, identity, { ...entry, detail: { ...entry.detail, code: refusal.code } });
  throw refusal;
}

/**
 * Reveals the handoff content of an order in dispute or held abnormal, for settling it, with the
 * reason the admin states. The gateway lets only roles with `handoffs.reveal` in. With an open
 * dispute on the order the admin reveals alone; without one the caller's approved reveal request is
 * used up by the reveal, in one transaction on the locked request, so two reveals cannot share it
 * (ADR 0056). Every reveal is audited with its reason, a refused one too.
 */
export async function revealHandoffRecords(deps: OrdersDeps, identity: AdminIdentity, id: string, reason: string, requestId: string | undefined) {
  const order = await existingOrder(deps, id);
  const audit = { action: REVEAL_AUDIT, biz_type: 'order', biz_id: order.id };
  const openDispute = (await latestDisputeOf(deps.db, order.id))?.status === 'open';
  const refusal = await deps.db.transaction(async (tx) => {
    const request = requestId && isUuid(requestId) ? await findRevealRequest(tx, order.id, requestId, { lock: true }) : null;
    const grant = planReveal(order, openDispute, request, identity.sub);
    if (grant instanceof Error) return grant;
    if (grant.via === 'approved_request') await useRevealRequest(tx, request!.id, new Date());
    const rows = await handoffRecordsOf(tx, order.id);
    await recordAudit(deps.events, tx, identity, {
      ...audit,
      detail: { reason, status: order.status, records: rows.length, via: grant.via, ...(request ? { request_id: request.id } : {}) },
    });
    return null;
  });
  if (refusal) return refuse(deps, identity, { ...audit, detail: { reason, status: order.status, ...(requestId ? { request_id: requestId } : {}) } }, refusal);
  const rows = await handoffRecordsOf(deps.db, order.id);
  return { items: handoffRecordViews(deps, rows, 'admin_reveal', order.status) };
}

/** An admin asks for a second admin's approval to reveal an order's handoff content (audited). */
export async function requestReveal(deps: OrdersDeps, identity: AdminIdentity, id: string, reason: string) {
  const order = await existingOrder(deps, id);
  const audit = { action: 'order.handoff_records.reveal_request', biz_type: 'order', biz_id: order.id };
  const refusal = revealRequestRefusal(order);
  if (refusal) return refuse(deps, identity, { ...audit, detail: { reason, status: order.status } }, refusal);
  const row = await deps.db.transaction(async (tx) => {
    const inserted = await insertRevealRequest(tx, { id: uuidv7(), order_id: order.id, requested_by: identity.sub, reason });
    await recordAudit(deps.events, tx, identity, { ...audit, detail: { reason, status: order.status, request_id: inserted.id } });
    return inserted;
  });
  return toRevealRequestView(row);
}

/** The reveal requests of an order, newest first. */
export async function listRevealRequests(deps: OrdersDeps, id: string) {
  const order = await existingOrder(deps, id);
  return { items: (await revealRequestsOf(deps.db, order.id)).map(toRevealRequestView) };
}

/**
 * A second admin approves a reveal request (audited). The request is locked, so of two approvals
 * at once one wins and the other finds it approved already.
 */
export async function approveReveal(deps: OrdersDeps, identity: AdminIdentity, id: string, requestId: string) {
  const order = await existingOrder(deps, id);
  const audit = { action: 'order.handoff_records.reveal_approve', biz_type: 'order', biz_id: order.id, detail: { request_id: requestId, status: order.status } };
  const outcome = await deps.db.transaction(async (tx) => {
    const request = isUuid(requestId) ? await findRevealRequest(tx, order.id, requestId, { lock: true }) : null;
    if (!request) return new NotFound('reveal request not found');
    const refusal = approvalRefusal(order, request, identity.sub);
    if (refusal) return refusal;
    const approved = await approveRevealRequest(tx, request.id, identity.sub, new Date());
    await recordAudit(deps.events, tx, identity, { ...audit, detail: { ...audit.detail, requested_by: request.requested_by, reason: request.reason } });
    return approved;
  });
  if (outcome instanceof Error) return refuse(deps, identity, audit, outcome);
  return toRevealRequestView(outcome);
}
