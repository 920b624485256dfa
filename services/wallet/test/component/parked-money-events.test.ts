import { connect } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import { buildEvent } from '@market/shared/events';
import { eventually, startComponent, type Component } from '@market/testkit';

/**
 * A money event the wallet parks before any handler runs — a body that is no event, an event off its
 * contract, an envelope naming a producer that does not own the type — alerts the back office as any
 * parked money event does (ADR 0026): an `ops.alert` EVENT_PARKED and an `event.parked` audit entry.
 */
describe('wallet alone: money events parked unread', () => {
  let wallet: Component;

  beforeAll(async () => {
    wallet = await startComponent('wallet');
  });
  afterAll(() => wallet?.stop());

  async function publishRaw(body: string, messageId: string) {
    const connection = await connect(String(wallet.env.AMQP_URL));
    try {
      const channel = await connection.createConfirmChannel();
      channel.publish(String(wallet.env.EVENTS_EXCHANGE), 'order.completed', Buffer.from(body), { persistent: true, messageId, contentType: 'application/json' });
      await channel.waitForConfirms();
      await channel.close();
    } finally {
      await connection.close();
    }
  }

  const parkedAlert = (eventId: string) => wallet.awaitPublished('ops.alert', (e) => e.data.alert === 'EVENT_PARKED' && e.data.subject_id === eventId);
  const parkedAudit = (eventId: string) =>
    wallet.awaitPublished('audit.recorded', (e) => e.data.action === 'event.parked' && e.data.biz_id === eventId);

  it('alerts on an unreadable body, an off-contract money event and a forged one, each with its id and reason', async () => {
    const garbled = uuidv7();
    await publishRaw('{"id": "half a message', garbled);

    const offContract = uuidv7();
    const broken = { id: offContract, type: 'order.completed', version: 1, occurred_at: new Date().toISOString(), producer: 'orders', data: { order_id: 'x', amount: -5 } };
    await publishRaw(JSON.stringify(broken), offContract);

    const forged = buildEvent(
      'order.completed',
      {
        order_id: uuidv7(),
        listing_id: uuidv7(),
        listing_title: 'a game account',
        renter_id: uuidv7(),
        owner_id: uuidv7(),
        status: 'completed',
        rent: 1600,
        deposit: 5000,
        amount: 6600,
        hours: 2,
        reason: null,
        actor_id: null,
        consumption: 1600,
        deposit_deduction: 0,
        refund: 5000,
        owner_income: 1520,
        platform_fee: 80,
      },
      'catalog',
      null,
    );
    await publishRaw(JSON.stringify(forged), forged.id);

    const [unread] = await parkedAlert(garbled);
    expect(unread!.data).toMatchObject({ severity: 'critical', service: 'wallet', detail: { event_id: garbled, type: null, reason: expect.stringMatching(/^unreadable event/) } });
    const [invalid] = await parkedAlert(offContract);
    expect(invalid!.data).toMatchObject({ detail: { event_id: offContract, type: 'order.completed', reason: expect.stringMatching(/^unreadable event/) } });
    const [untrusted] = await parkedAlert(forged.id);
    expect(untrusted!.data).toMatchObject({ detail: { event_id: forged.id, type: 'order.completed', reason: 'producer catalog does not own order.completed' } });
    for (const id of [garbled, offContract, forged.id]) await parkedAudit(id);
    // the three broke the contracts on the exchange, as the tap saw
    await eventually(async () => wallet.published('ops.alert').length, (n) => n >= 3);
    expect(() => wallet.verify()).toThrow(/contract violations/);
  });
});
