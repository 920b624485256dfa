import { BrokerUsers, brokerUserOf } from '../src/events/broker-users';

describe('which service a broker user is (ADR 0054)', () => {
  it('reads the prefix off the consumer\'s own user and maps every service by it', () => {
    const users = new BrokerUsers('market_notify', 'notify');
    expect(users.shared).toBe(false);
    expect(users.userOf('orders')).toBe('market_orders');
    expect(users.serviceOf('market_orders', 'wallet')).toBe('orders');
    expect(users.serviceOf('market_broker_admin', 'orders')).toBeUndefined();
    expect(users.serviceOf('guest', 'orders')).toBeUndefined();
  });

  it('with one user shared by every service, only that user is anybody and the envelope says who', () => {
    const users = new BrokerUsers('guest', 'notify');
    expect(users.shared).toBe(true);
    expect(users.serviceOf('guest', 'orders')).toBe('orders');
    expect(users.serviceOf('market_orders', 'orders')).toBeUndefined();
  });

  it('takes the user from the URL, RabbitMQ\'s guest when it names none', () => {
    expect(brokerUserOf('amqp://market_catalog:pw@rabbit:5672/v')).toBe('market_catalog');
    expect(brokerUserOf('amqp://rabbit:5672')).toBe('guest');
  });
});
