import { z } from 'zod';
import { v7 as uuidv7 } from 'uuid';
import { eventDataSchemas, type EventData, type EventType } from '@market/contracts';
import { currentTraceparent } from '../tracing';

/** Every event message is this envelope (docs/rules.md §8), on its producer's own exchange with routing key = `type` (ADR 0011, 0054). */
export const EventEnvelope = z.object({
  id: z.string().uuid(),
  type: z.string(),
  version: z.number().int().min(1),
  occurred_at: z.string(),
  producer: z.string(),
  correlation_id: z.string().nullable(),
  /** W3C trace context of the change that wrote the event, when tracing is on: a consumer's span continues that trace */
  traceparent: z.string().max(128).optional(),
  data: z.unknown(),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;

export interface DomainEvent<T extends EventType = EventType> extends Omit<EventEnvelope, 'type' | 'data'> {
  type: T;
  data: EventData<T>;
}

export function isKnownEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(eventDataSchemas, type);
}

/** Validates the data against the registry, so no service can publish or accept an event off-contract. */
export function buildEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  producer: string,
  correlationId: string | null,
): DomainEvent<T> {
  const parsed = eventDataSchemas[type].parse(data) as EventData<T>;
  const traceparent = currentTraceparent();
  return {
    id: uuidv7(),
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    producer,
    correlation_id: correlationId,
    ...(traceparent ? { traceparent } : {}),
    data: parsed,
  };
}

export function parseEvent(raw: unknown): DomainEvent {
  const envelope = EventEnvelope.parse(raw);
  if (!isKnownEventType(envelope.type)) throw new Error(`unknown event type ${envelope.type}`);
  const data = eventDataSchemas[envelope.type].parse(envelope.data);
  return { ...envelope, type: envelope.type, data } as DomainEvent;
}
