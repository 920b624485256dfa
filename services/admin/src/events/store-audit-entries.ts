import type { Tx } from '@market/shared/db';
import type { DomainEvent } from '@market/shared/events';
import { insertAuditLogs } from '../persistence/audit-logs';

/**
 * `audit.recorded` from any service, this one included, becomes a row of the back-office audit log:
 * every entry of an inbox batch at once, in delivery order (a run handler, ADR 0068), since each
 * round trip costs CPU on both sides and an order's steps write several.
 */
export async function storeAuditEntries(events: Array<DomainEvent<'audit.recorded'>>, tx: Tx) {
  await insertAuditLogs(
    tx,
    events.map(({ id, producer, data: { occurred_at, ...entry } }) => ({ id, producer, created_at: occurred_at, ...entry })),
  );
}
