import { SERVICE_NAMES } from '@market/contracts';

/** The broker user an AMQP URL logs in as: RabbitMQ's default, `guest`, when it names none. */
export function brokerUserOf(url: string): string {
  return decodeURIComponent(new URL(url).username) || 'guest';
}

/**
 * Which service a broker user is (ADR 0054). Every service connects as `<prefix><service>` (the
 * registry's role names, `market_catalog`; a test vhost's `t_ab12cd34_catalog`), so a consumer reads
 * the prefix off its own user and knows everybody's. A process whose user does not end in its own
 * service's name shares one user with every service (development's `guest`): then the broker cannot
 * tell services apart, and the envelope's producer is all there is (`shared`).
 */
export class BrokerUsers {
  private readonly prefix: string | null;

  constructor(
    readonly own: string,
    ownService: string,
  ) {
    this.prefix = own.endsWith(ownService) && own.length > ownService.length ? own.slice(0, -ownService.length) : null;
  }

  get shared(): boolean {
    return this.prefix === null;
  }

  userOf(service: string): string {
    return this.prefix === null ? this.own : `${this.prefix}${service}`;
  }

  /** The service whose user `user` is; with a shared user, the producer the envelope names. */
  serviceOf(user: string, claimedProducer: string): string | undefined {
    if (this.prefix === null) return user === this.own ? claimedProducer : undefined;
    return SERVICE_NAMES.find((service) => this.userOf(service) === user);
  }
}
