import { eventConsumers, eventProducers, type EventType, SERVICE_NAMES } from '@market/contracts';
import { plumbingExchange, producerExchange, queueNames } from './topology';

/** What one service's broker user may do in the vhost: RabbitMQ's three regexes and its topic permission. */
export interface ServicePermissions {
  configure: string;
  write: string;
  read: string;
  topic: { exchange: string; write: string; read: string };
}

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches exactly `names` and nothing else: never the empty name, which is the default exchange. */
export function exactly(names: readonly string[]): string {
  return names.length === 0 ? '^$' : `^(${names.map(escape).join('|')})$`;
}

/** The types `service` owns in the contracts, the only routing keys it may publish. */
export function ownedTypes(service: string): EventType[] {
  return (Object.keys(eventProducers) as EventType[]).filter((type) => (eventProducers[type] as readonly string[]).includes(service));
}

/**
 * The permissions of `service`'s broker user on the topology of `exchange` (ADR 0054): it declares
 * nothing (the provisioning does; `^$` also keeps it from deleting anything), writes only its own
 * exchange, and there only its own types' routing keys, and its own plumbing; it reads only its own
 * queue. The default exchange (the empty name) matches no write regex, so no service can drop a
 * message into another's queue by name.
 */
export function servicePermissions(exchange: string, service: string): ServicePermissions {
  const own = producerExchange(exchange, service);
  const consumes = ((eventConsumers as Record<string, readonly EventType[]>)[service] ?? []).length > 0;
  return {
    configure: '^$',
    write: exactly(consumes ? [own, plumbingExchange(service, exchange)] : [own]),
    read: exactly(consumes ? [queueNames(service, exchange).main] : []),
    topic: { exchange: own, write: exactly(ownedTypes(service)), read: '.*' },
  };
}

/** Every service's permissions, in registry order. */
export function brokerPermissions(exchange: string): Array<{ service: string } & ServicePermissions> {
  return SERVICE_NAMES.map((service) => ({ service, ...servicePermissions(exchange, service) }));
}
