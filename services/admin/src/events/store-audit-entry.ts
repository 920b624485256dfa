import type { Tx } from '@market/shared/db';
import type { DomainEvent } from '@market/shared/events';
import { insertAuditLog } from '../persistence/audit-logs';

/** `audit.recorded` from any service, this one included, becomes a row of the back-office audit log. */
export async function storeAuditEntry(event: DomainEvent<'audit.recorded'>, tx: Tx) {
  const { occurred_at, ...entry } = event.data;
  await insertAuditLog(tx, { id: event.id, producer: event.producer, created_at: occurred_at, ...entry });
}
