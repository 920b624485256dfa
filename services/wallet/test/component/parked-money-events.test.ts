import { v7 as uuidv7 } from 'uuid';
import { eventually, publishRawAs, startComponent, type Component } from '@market/testkit';

/**
 * A money event the wallet parks before any handler runs — a body that is no event, an event off its
 * contract — alerts the back office as any parked money event does (ADR 0026): an `ops.alert`
 * EVENT_PARKED and an `event.parked` audit entry. (One sent by a service that does not own its type is
 * refused by the broker or parked as untrusted, with its own alert: ADR 0054's tests.)
 */
describe('wallet alone: money events parked unread', () => {
  let wallet: Component;

  beforeAll(async () => {
    wallet = await startComponent('wallet');
  });
  afterAll(() => wallet?.stop());

  /** Bytes on orders' exchange as orders' broker user: the owner of order.completed, sending what no relay would. */
  const publishRaw = (body: string, messageId: string) =>
    publishRawAs(wallet.env, 'orders', [{ routingKey: 'order.completed', content: Buffer.from(body), options: { messageId, contentType: 'application/json' } }]);

  const parkedAlert = (eventId: string) => wallet.awaitPublished('ops.alert', (e) => e.data.alert === 'EVENT_PARKED' && e.data.subject_id === eventId);
  const parkedAudit = (eventId: string) =>
    wallet.awaitPublished('audit.recorded', (e) => e.data.action === 'event.parked' && e.data.biz_id === eventId);

  it('alerts on an unreadable body and an off-contract money event, each with its id and reason', async () => {
    const garbled = uuidv7();
    await publishRaw('{"id": "half a message', garbled);

    const offContract = uuidv7();
    const broken = { id: offContract, type: 'order.completed', version: 1, occurred_at: new Date().toISOString(), producer: 'orders', data: { order_id: 'x', amount: -5 } };
    await publishRaw(JSON.stringify(broken), offContract);


    const [unread] = await parkedAlert(garbled);
    expect(unread!.data).toMatchObject({ severity: 'critical', service: 'wallet', detail: { event_id: garbled, type: null, reason: expect.stringMatching(/^unreadable event/) } });
    const [invalid] = await parkedAlert(offContract);
    expect(invalid!.data).toMatchObject({ detail: { event_id: offContract, type: 'order.completed', reason: expect.stringMatching(/^unreadable event/) } });
    for (const id of [garbled, offContract]) await parkedAudit(id);
    // the two broke the contracts on the exchange, as the tap saw
    await eventually(async () => wallet.published('ops.alert').length, (n) => n >= 2);
    expect(() => wallet.verify()).toThrow(/contract violations/);
  });
});
