import type { EventType } from '@market/contracts';
import { runWithRequestId } from '../context/request-context';
import type { Tx } from '../db/sql';
import type { DomainEvent } from './envelope';

/** Applies one event's effect in the inbox's transaction. */
export type EventHandler<T extends EventType> = (event: DomainEvent<T>, tx: Tx) => Promise<void>;

/**
 * Applies several events in one call, in delivery order: in a batch (`batchSize`), each run of
 * consecutive fresh deliveries it handles; handled alone, the one event. One run handler may be
 * given for several types, and then a run mixes them. For a handler that writes all of them in one
 * statement, where a call per event would cost a round trip per event.
 * A call with several events runs under no request id: each event names its own (`correlation_id`).
 */
export interface EventRunHandler<T extends EventType> {
  together: (events: Array<DomainEvent<T>>, tx: Tx) => Promise<void>;
}

export type EventHandlers = { [T in EventType]?: EventHandler<T> | EventRunHandler<T> };

/** A handler of any type, as the inbox holds it once it has looked it up by an event's type. */
export type AnyEventHandler = EventHandler<EventType> | EventRunHandler<EventType>;

/**
 * The events split where the handler changes: each run goes to its handler in one call, the runs in
 * delivery order, so effects across handlers keep their order.
 */
export function runsOfOneHandler(events: readonly DomainEvent[], handlerOf: (event: DomainEvent) => AnyEventHandler): DomainEvent[][] {
  const runs: DomainEvent[][] = [];
  let current: AnyEventHandler | undefined;
  for (const event of events) {
    const handler = handlerOf(event);
    const last = runs.at(-1);
    if (last && handler === current) last.push(event);
    else runs.push([event]);
    current = handler;
  }
  return runs;
}

/**
 * Applies a run of events of one handler: a run handler takes it in one call, any other handler
 * event by event. One event runs under its own request id, as logs and the events it writes expect.
 */
export async function applyRun(handler: AnyEventHandler, events: DomainEvent[], tx: Tx) {
  const alone = events.length === 1 ? events[0]! : null;
  if (typeof handler !== 'function') {
    if (alone) await runWithRequestId(alone.correlation_id ?? alone.id, () => handler.together(events, tx));
    else await handler.together(events, tx);
    return;
  }
  for (const event of events) await runWithRequestId(event.correlation_id ?? event.id, () => handler(event, tx));
}
