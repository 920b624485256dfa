/**
 * The one list of services. Everything that enumerates services reads it: the kit (ServiceName,
 * DEFAULT_PORTS, service URLs, the event topology), the launcher and provisioning scripts
 * (scripts/*.mjs read the built kit), the bench and the compose check. Adding a service starts
 * here; docs/architecture.md "Adding a route, an event, a service" lists the rest.
 */
export const SERVICE_REGISTRY = [
  { name: 'identity', portOffset: 1, schema: 'identity', role: 'market_identity' },
  { name: 'catalog', portOffset: 2, schema: 'catalog', role: 'market_catalog' },
  { name: 'orders', portOffset: 3, schema: 'orders', role: 'market_orders' },
  { name: 'wallet', portOffset: 4, schema: 'wallet', role: 'market_wallet' },
  { name: 'files', portOffset: 5, schema: 'files', role: 'market_files' },
  { name: 'notify', portOffset: 6, schema: 'notify', role: 'market_notify' },
  { name: 'admin', portOffset: 7, schema: 'admin', role: 'market_admin' },
] as const satisfies ReadonlyArray<ServiceEntry>;

export interface ServiceEntry {
  name: string;
  /** its local port is the gateway's plus this (8080 + 1 = 8081 by default) */
  portOffset: number;
  /** its Postgres schema, which only its role owns (ADR 0003) */
  schema: string;
  /** its Postgres login role (and, with the broker's user prefix, its RabbitMQ user) */
  role: string;
}

export type ServiceName = (typeof SERVICE_REGISTRY)[number]['name'];

/** The gateway listens on the base port; each service on the base plus its offset. */
export const GATEWAY_DEFAULT_PORT = 8080;

export function serviceEntry(name: ServiceName): (typeof SERVICE_REGISTRY)[number] {
  const entry = SERVICE_REGISTRY.find((s) => s.name === name);
  if (!entry) throw new Error(`unknown service ${name}`);
  return entry;
}
