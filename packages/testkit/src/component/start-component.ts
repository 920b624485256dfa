import { eventConsumers, SERVICE_NAMES, type EventData, type EventType, type InternalCaller, type ServiceName } from '@market/contracts';
import type { DomainEvent } from '@market/shared/events';
import { InternalClient } from '@market/shared/http';
import { startService, type RunningService } from '@market/shared/service';
import {
  assertionFor,
  dropSchemas,
  leaseTestBroker,
  provisionTestRedis,
  serviceEnv,
  testBrokerEnv,
  testEnv,
  testRedisEnv,
  uniqueName,
  type TestBroker,
  type TestRedisUsers,
} from '@market/shared/testing';
import { DEFINITIONS } from '../definitions';
import { eventually } from '../eventually';
import { closeOnTeardown } from '../leftovers';
import { directCaller, type DirectAnswer, type DirectCall } from './direct-calls';
import { EventTap, publishOnExchange } from './event-bus';
import { FakeNeighbours, type Answer } from './fake-neighbours';
import type { AnyInternalRoute, AnyRoute, RouteResult } from '@market/contracts';

/** Breaks of the contracts seen around a component: at its faked neighbours or in the events it published. */
export class ContractViolations extends Error {
  constructor(readonly violations: string[]) {
    super(`contract violations around the component:\n- ${violations.join('\n- ')}`);
    this.name = 'ContractViolations';
  }
}

export interface ComponentOptions {
  /** what the faked neighbours answer from the start (a service may call them as it starts: orders reads admin's configuration) */
  answers?: Answer[];
  /** environment for the service, over the test defaults */
  env?: Record<string, string>;
}

export interface Component {
  name: ServiceName;
  /** the service's own URL: the gateway is not there */
  url: string;
  env: NodeJS.ProcessEnv;
  service: RunningService<any>;
  /** the other services, faked at their internal contracts: `answer(contract, fn)`, `calls(contract)` */
  neighbours: FakeNeighbours;
  /** a public route of the service, called as the gateway would forward it; the answer is held against the route's contract */
  call<C extends AnyRoute>(route: C, input?: DirectCall): Promise<DirectAnswer>;
  /** `call` that must succeed; the typed body */
  ok<C extends AnyRoute>(route: C, input?: DirectCall): Promise<RouteResult<C>>;
  /** the service's own `/internal/*` routes, called as `caller` (each route answers only the callers its contract names) */
  internalAs(caller: InternalCaller): InternalClient;
  /** publishes an event in the real envelope, as its producer would; `id` redelivers an envelope already sent */
  publish<T extends EventType>(type: T, data: EventData<T>, id?: string): Promise<DomainEvent<T>>;
  /** the events of `type` the service has published so far, each held against its contract */
  published<T extends EventType>(type: T, accept?: (event: DomainEvent<T>) => boolean): Array<DomainEvent<T>>;
  /** waits until the service has published `count` events of `type` that `accept` takes, and returns them */
  awaitPublished<T extends EventType>(type: T, accept?: (event: DomainEvent<T>) => boolean, count?: number): Promise<Array<DomainEvent<T>>>;
  /** throws every contract violation seen since the last call (by the service, or by the test's own fake answers) */
  verify(): void;
  stop(): Promise<void>;
}

/**
 * One service, started in-process through its package entry as `startStack` starts it (its own
 * schema, exchange and Redis key prefix), with every other service faked at its contracts: an HTTP
 * fake per neighbour answers the `/internal/*` routes the test gives answers for, and a tap on the
 * exchange sees every event. Postgres, RabbitMQ and Redis are real, and nothing of the service is
 * replaced: a component test proves what the service does at its edges — its answers, its calls,
 * the events it publishes and how it takes the events it consumes — without the other seven
 * processes (ADR 0045).
 *
 * The service listens on a port the kernel picks (no neighbour needs its address in advance), and
 * handles one event at a time (`INBOX_PREFETCH=1`), so events published one after the other are
 * handled in that order and a test can wait for the effect of the last one.
 */
export async function startComponent(name: ServiceName, opts: ComponentOptions = {}): Promise<Component> {
  const schema = uniqueName(`c_${name}`);
  let fakes: FakeNeighbours | undefined;
  let tap: EventTap | undefined;
  let service: RunningService<any> | undefined;
  let broker: TestBroker | undefined;
  let redisUsers: TestRedisUsers | undefined;
  let env: NodeJS.ProcessEnv = {};
  const collect = () => [...(fakes?.takeViolations() ?? []), ...(tap?.takeViolations() ?? [])];
  const stop = closeOnTeardown(async () => {
    await service?.stop();
    await fakes?.close();
    await tap?.close();
    await broker?.close();
    await redisUsers?.close();
    if (env.DATABASE_URL) await dropSchemas(String(env.DATABASE_URL), [schema]);
    // what no test verified still fails the file
    const left = collect();
    if (left.length > 0) throw new ContractViolations(left);
  });
  try {
    fakes = await FakeNeighbours.start(
      name,
      SERVICE_NAMES.filter((other) => other !== name),
    );
    for (const given of opts.answers ?? []) fakes.answer(given.contract as AnyInternalRoute, given.answer);
    const base = await testEnv({ REDIS_KEY_PREFIX: `${uniqueName('c')}:`, SHUTDOWN_GRACE_MS: '0', INBOX_PREFETCH: '1', ...opts.env });
    broker = await leaseTestBroker(String(base.AMQP_URL), String(base.EVENTS_EXCHANGE));
    redisUsers = await provisionTestRedis(String(base.REDIS_URL), String(base.REDIS_KEY_PREFIX));
    env = {
      ...base,
      ...testBrokerEnv(broker),
      ...testRedisEnv(redisUsers),
      ...fakes.urls(),
      // nothing listens on port 1: a call to itself would fail loudly
      [`${name.toUpperCase()}_URL`]: 'http://127.0.0.1:1',
    };
    tap = await EventTap.open(String(env.AMQP_URL), String(env.EVENTS_EXCHANGE));
    service = await startService(DEFINITIONS[name], {
      ...serviceEnv(env, name),
      DB_SCHEMA: schema,
      PORT: '0',
    });
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  const running = service;
  const neighbours = fakes;
  const events = tap;
  const caller = directCaller(running.url);
  const published = <T extends EventType>(type: T, accept: (event: DomainEvent<T>) => boolean = () => true) =>
    events.events(type, name).filter(accept);
  return {
    name,
    url: running.url,
    env,
    service: running,
    neighbours,
    call: caller.call,
    ok: caller.ok,
    internalAs: (as) =>
      new InternalClient(
        Object.fromEntries(SERVICE_NAMES.map((other) => [other, running.url])) as Record<ServiceName, string>,
        (target) => assertionFor({ kind: 'service', sub: as, ip: null }, { service: target.audience, method: target.method, path: target.path }),
      ),
    publish: (type, data, id) => {
      if (!(eventConsumers[name] as readonly EventType[]).includes(type)) {
        throw new Error(`${name} does not consume ${type} (eventConsumers in contracts/events.ts): publishing it would prove nothing`);
      }
      return publishOnExchange(env, type, data, id);
    },
    published,
    awaitPublished: (type, accept, count = 1) =>
      eventually(
        async () => published(type, accept),
        (found) => found.length >= count,
      ),
    verify() {
      const found = collect();
      if (found.length > 0) throw new ContractViolations(found);
    },
    stop,
  };
}
