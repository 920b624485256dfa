import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getOrder, systemConfigValues } from '@market/contracts';
import { asUser, ContractBreach, ContractViolations, directCaller, eventually, publishRawAs, startComponent, type Component } from '@market/testkit';

describe('a component test’s contract checks', () => {
  let orders: Component;

  beforeAll(async () => {
    // no answers given: orders asks admin for its configuration as it starts, and again every 200 ms until answered
    orders = await startComponent('orders', { env: { SETTINGS_RETRY_MS: '200' } });
  });
  afterAll(() => orders?.stop());

  const violations = () => {
    try {
      orders.verify();
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ContractViolations);
      return (err as ContractViolations).violations;
    }
  };

  it('reports a call no test answered, then an answer off the route’s response schema, and is quiet once the answer fits', async () => {
    const unanswered = await eventually(async () => violations(), (found) => found.length > 0);
    expect(unanswered[0]).toContain('systemConfigValues was called but the test gave it no answer');

    orders.neighbours.answer(systemConfigValues, () => ({ items: 'none' }) as never);
    const offContract = await eventually(
      async () => violations(),
      (found) => found.some((v) => v.includes("systemConfigValues: the test's answer is off the contract")),
    );
    expect(offContract.length).toBeGreaterThan(0);

    orders.neighbours.answer(systemConfigValues, () => ({ items: [] }));
    const answered = orders.neighbours.calls(systemConfigValues).length;
    await eventually(async () => orders.neighbours.calls(systemConfigValues).length, (n) => n > answered);
    violations();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(violations()).toEqual([]);
  });

  it('holds every event on the exchange to the event contracts, whoever published it', async () => {
    const envelope = { id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', type: 'order.paid', version: 1, occurred_at: new Date().toISOString(), producer: 'orders', correlation_id: null, data: { order_id: 'x' } };
    await publishRawAs(orders.env, 'orders', [{ routingKey: 'order.paid', content: Buffer.from(JSON.stringify(envelope)) }]);
    const found = await eventually(async () => violations(), (v) => v.length > 0);
    expect(found).toEqual([expect.stringContaining('an event off its contract (routing key order.paid)')]);
  });
});

describe('a direct call’s answer held against the route contract', () => {
  let server: Server;
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = () => directCaller(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).call(getOrder, { params: { id: 'x' }, as: asUser() });
  const problem = (status: number) => ({ type: 'about:blank', title: 'Not found', status, code: 'NOT_FOUND', detail: 'gone', instance: '/api/orders/x' });

  it('throws ContractBreach for a success off its schema, an undeclared status, or an error that is no problem', async () => {
    answer = { status: 200, body: { id: 'x' } };
    await expect(call()).rejects.toThrow(ContractBreach);
    answer = { status: 418, body: problem(418) };
    await expect(call()).rejects.toThrow(/a status the route does not declare/);
    answer = { status: 404, body: { error: 'gone' } };
    await expect(call()).rejects.toThrow(/not a problem/);
    answer = { status: 404, body: problem(409) };
    await expect(call()).rejects.toThrow(/the problem says status 409/);
  });

  it('passes a declared refusal in the problem shape', async () => {
    answer = { status: 404, body: problem(404) };
    expect(await call()).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });
});
