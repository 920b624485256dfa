import type { Db, Tx } from '../db/sql';
import type { Identity } from '../auth/assertion';
import type { EventData } from '@market/contracts';
import { currentRequestId } from '../context/request-context';
import type { EventWriter } from './outbox';

export interface AuditEntry {
  action: string;
  biz_type: string;
  biz_id?: string | null;
  detail?: Record<string, unknown>;
  result?: 'success' | 'failure';
}

function actorOf(identity: Identity | null): Pick<EventData<'audit.recorded'>, 'actor_type' | 'actor_id' | 'ip'> {
  if (!identity || identity.kind === 'anonymous') return { actor_type: 'system', actor_id: null, ip: identity?.ip ?? null };
  if (identity.kind === 'service') return { actor_type: 'system', actor_id: null, ip: null };
  return { actor_type: identity.kind, actor_id: identity.sub, ip: identity.ip };
}

/** The `audit.recorded` event of an entry, for `EventWriter.publishAll` beside the change's own events. */
export function auditEvent(identity: Identity | null, entry: AuditEntry): { type: 'audit.recorded'; data: EventData<'audit.recorded'> } {
  return {
    type: 'audit.recorded',
    data: {
      ...actorOf(identity),
      action: entry.action,
      biz_type: entry.biz_type,
      biz_id: entry.biz_id ?? null,
      detail: entry.detail ?? {},
      result: entry.result ?? 'success',
      request_id: currentRequestId() ?? null,
      occurred_at: new Date().toISOString(),
    },
  };
}

/**
 * Records an audit entry as an `audit.recorded` event in the caller's transaction: the back office's
 * audit log (admin service) has it exactly when the audited change committed. Refusals that roll
 * back (a refused login) go through `auditRefusal` instead.
 * Never put a secret, token or code into `detail`.
 */
export async function recordAudit(events: EventWriter, tx: Tx, identity: Identity | null, entry: AuditEntry) {
  const { type, data } = auditEvent(identity, entry);
  await events.publish(tx, type, data);
}

/**
 * Records a refusal (`result: 'failure'`). The refusal throws, which rolls back whatever transaction
 * the use case had open, so the entry is written in a transaction of its own and outlives it.
 */
export async function auditRefusal(db: Db, events: EventWriter, identity: Identity | null, entry: Omit<AuditEntry, 'result'>) {
  await db.transaction((tx) => recordAudit(events, tx, identity, { ...entry, result: 'failure' }));
}
