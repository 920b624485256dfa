import type { Db } from '../db/sql';
import { recordAudit } from './audit';
import type { EventWriter } from './outbox';

export interface UntrustedEvent {
  event_id: string;
  type: string;
  /** the producer the envelope claims */
  producer: string;
  /** the broker user the broker vouched for, if the message had one */
  broker_user: string | null;
  reason: string;
}

/**
 * Tells the back office that a consumer refused an event it could not trust (a forgery, or a
 * service publishing what it does not own; ADR 0054): an `ops.alert` and an audit entry through the
 * outbox, in a transaction of their own. Nothing of the event was applied.
 */
export async function alertUntrusted(db: Db, events: EventWriter, service: string, refused: UntrustedEvent) {
  await db.transaction(async (tx) => {
    const detail = { ...refused, reason: refused.reason.slice(0, 500) };
    await events.publish(tx, 'ops.alert', {
      alert: 'EVENT_UNTRUSTED',
      severity: 'critical',
      service,
      summary: `${service} refused ${refused.type} ${refused.event_id} and parked it (npm run dlq -- list ${service}): ${detail.reason}`,
      subject_type: 'event',
      subject_id: refused.event_id,
      detail,
      raised_at: new Date().toISOString(),
    });
    await recordAudit(events, tx, null, { action: 'event.untrusted', biz_type: 'event', biz_id: refused.event_id, detail, result: 'failure' });
  });
}
