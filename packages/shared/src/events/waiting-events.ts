import { updateReturning, type Db, type Queryable, type Tx } from '../db/sql';
import { isUuid } from '../db/uuid';
import { sqlMigration } from '../db/migration';
import { recordAudit } from './audit';
import type { DomainEvent } from './envelope';
import type { EventWriter } from './outbox';

/**
 * One row per money-moving event that failed and is being retried (ADR 0026): what it is, how
 * often it failed, since when and why. The row goes when the event is finally handled. Operators
 * and a metrics exporter read it (`SELECT * FROM <schema>.waiting_events`).
 */
export const CreateWaitingEvents1765100000000 = sqlMigration(
  'CreateWaitingEvents1765100000000',
  [
    `
      CREATE TABLE waiting_events (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        attempts int NOT NULL,
        first_failed_at timestamptz NOT NULL,
        last_failed_at timestamptz NOT NULL,
        last_error text NOT NULL,
        alerted_at timestamptz
      )`,
  ],
  [`DROP TABLE waiting_events`],
);

export async function hasWaitingEventsTable(db: Queryable): Promise<boolean> {
  const [row]: Array<{ present: boolean }> = await db.query(`SELECT to_regclass('waiting_events') IS NOT NULL AS present`);
  return row!.present;
}

export interface WaitingFailure {
  event: DomainEvent;
  attempts: number;
  firstFailedAt: Date;
  error: string;
  /** whether it has waited long enough for the back office to be told (once) */
  alert: boolean;
}

/**
 * Records (or updates) the waiting row of a failed money event in a transaction of its own and,
 * the first time `alert` holds, tells the back office: an `ops.alert` and an audit entry through the
 * outbox, in the same transaction. Returns whether the alert was raised now.
 */
export async function recordWaiting(db: Db, events: EventWriter, service: string, f: WaitingFailure): Promise<boolean> {
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row]: Array<{ alert_now: boolean }> = await tx.query(
      `INSERT INTO waiting_events AS w (event_id, type, attempts, first_failed_at, last_failed_at, last_error, alerted_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::boolean THEN $5::timestamptz END)
       ON CONFLICT (event_id) DO UPDATE SET attempts = GREATEST(w.attempts, EXCLUDED.attempts),
         first_failed_at = LEAST(w.first_failed_at, EXCLUDED.first_failed_at), last_failed_at = EXCLUDED.last_failed_at,
         last_error = EXCLUDED.last_error, alerted_at = COALESCE(w.alerted_at, EXCLUDED.alerted_at)
       RETURNING (alerted_at = $5::timestamptz) AS alert_now`,
      [f.event.id, f.event.type, f.attempts, f.firstFailedAt, now, f.error.slice(0, 500), f.alert],
    );
    if (!row!.alert_now) return false;
    const detail = { event_id: f.event.id, type: f.event.type, attempts: f.attempts, first_failed_at: f.firstFailedAt.toISOString(), last_error: f.error.slice(0, 500) };
    await events.publish(tx, 'ops.alert', {
      alert: 'EVENT_WAITING',
      severity: 'critical',
      service,
      summary: `${service} keeps failing to handle ${f.event.type} ${f.event.id} (${f.attempts} attempts since ${detail.first_failed_at}); it is retried until it succeeds: ${detail.last_error}`,
      subject_type: 'event',
      subject_id: f.event.id,
      detail,
      raised_at: now.toISOString(),
    });
    await recordAudit(events, tx, null, { action: 'event.waiting', biz_type: 'event', biz_id: f.event.id, detail, result: 'failure' });
    return true;
  });
}

/** A parked event as far as it could be read: an unreadable one may have no id or type. */
export interface ParkedEvent {
  id: string | null;
  type: string | null;
}

/**
 * A money event was parked (it can never succeed as it is, or could not even be read): the back
 * office must decide what happens to the money, so it is told at once, and the event stops being
 * reported as waiting.
 */
export async function recordParked(db: Db, events: EventWriter, service: string, event: ParkedEvent, reason: string) {
  await db.transaction(async (tx) => {
    if (isUuid(event.id)) await tx.query(`DELETE FROM waiting_events WHERE event_id = $1`, [event.id]);
    const now = new Date();
    const detail = { event_id: event.id, type: event.type, reason: reason.slice(0, 500) };
    await events.publish(tx, 'ops.alert', {
      alert: 'EVENT_PARKED',
      severity: 'critical',
      service,
      summary: `${service} cannot apply ${event.type ?? 'an unreadable event'} ${event.id ?? '(no id)'} and parked it in its dead-letter queue (npm run dlq -- list ${service}): ${detail.reason}`,
      subject_type: 'event',
      subject_id: event.id,
      detail,
      raised_at: now.toISOString(),
    });
    await recordAudit(events, tx, null, { action: 'event.parked', biz_type: 'event', biz_id: event.id, detail, result: 'failure' });
  });
}

export interface EarlierFailures {
  attempts: number;
  firstFailedAt: Date;
}

/**
 * In the transaction that finally handled `event`: removes its waiting row and, when the event had
 * waited long enough to be alerted on (`waitedLong`: the database may have been down all along, so
 * the row may not exist), records the recovery: an audit entry and an `ops.alert` of severity info.
 */
export async function clearWaiting(tx: Tx, events: EventWriter, service: string, event: DomainEvent, earlier: EarlierFailures, waitedLong: boolean) {
  const [row] = await updateReturning<{ first_failed_at: Date; alerted_at: Date | null }>(
    tx,
    `DELETE FROM waiting_events WHERE event_id = $1 RETURNING first_failed_at, alerted_at`,
    [event.id],
  );
  if (!row?.alerted_at && !waitedLong) return;
  const now = new Date();
  const firstFailedAt = row ? new Date(row.first_failed_at) : earlier.firstFailedAt;
  const waitedMs = now.getTime() - firstFailedAt.getTime();
  const detail = { event_id: event.id, type: event.type, failed_attempts: earlier.attempts, first_failed_at: firstFailedAt.toISOString(), waited_ms: waitedMs };
  await events.publish(tx, 'ops.alert', {
    alert: 'EVENT_RECOVERED',
    severity: 'info',
    service,
    summary: `${service} handled ${event.type} ${event.id} after ${earlier.attempts} failed attempts over ${Math.round(waitedMs / 1000)} s`,
    subject_type: 'event',
    subject_id: event.id,
    detail,
    raised_at: now.toISOString(),
  });
  await recordAudit(events, tx, null, { action: 'event.recovered', biz_type: 'event', biz_id: event.id, detail });
}
