import { connect } from 'amqplib';
import { buildEvent, queueNames } from '@market/shared/events';
import { serviceAmqpUrl, uniqueName } from '@market/shared/testing';
import { api, backOfficeAlerts, eventually, newAdmin, publishRawAs, startStack, type Stack } from '@market/testkit';

/**
 * The attacker is a service with its own broker credentials (ADR 0054): it may publish only on its
 * own exchange, only its own types, and the consumer believes the broker's user_id over the
 * envelope's `producer`.
 */
describe('forged events: a service passing for another is refused by the broker or parked and alerted by the consumer', () => {
  let stack: Stack;
  let admin: { token: string };

  beforeAll(async () => {
    stack = await startStack({ services: ['admin', 'notify'] });
    admin = await newAdmin(stack);
  });
  afterAll(() => stack?.stop());

  const auditBy = (actorId: string) => ({
    actor_type: 'admin' as const,
    actor_id: actorId,
    ip: null,
    action: 'admin.roles_changed',
    biz_type: 'admin_user',
    biz_id: null,
    detail: {},
    result: 'success' as const,
    request_id: null,
    occurred_at: new Date().toISOString(),
  });

  const auditLog = async (actor: string) => (await api(stack.url).get(`/api/admin/audit-logs?actor_id=${actor}`, admin.token)).body.items as unknown[];

  const sendAsCatalog = (event: ReturnType<typeof buildEvent>) =>
    publishRawAs(stack.env, 'catalog', [{ routingKey: event.type, content: Buffer.from(JSON.stringify(event)), options: { messageId: event.id } }]);

  it('an audit entry catalog writes in admin\'s name is parked and alerted, and never reaches the audit log; its own entry does', async () => {
    const forger = uniqueName('forger');
    const forged = buildEvent('audit.recorded', auditBy(forger), 'admin', null);
    await sendAsCatalog(forged);
    const alerts = await backOfficeAlerts(stack, admin, forged.id);
    expect(JSON.stringify(alerts[0])).toContain('EVENT_UNTRUSTED');

    const honest = uniqueName('honest');
    await sendAsCatalog(buildEvent('audit.recorded', auditBy(honest), 'catalog', null));
    await eventually(() => auditLog(honest), (items) => items.length === 1);
    expect(await auditLog(forger)).toEqual([]);
  });

  it('the broker refuses catalog a type it does not own, and the default exchange into admin\'s queue', async () => {
    const changed = buildEvent('system_config.changed', { key: 'order.payment_timeout_minutes', value: 1, updated_by: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', updated_at: new Date().toISOString() }, 'admin', null);
    await expect(sendAsCatalog(changed)).rejects.toThrow(/ACCESS_REFUSED.*system_config\.changed/);

    const connection = await connect(serviceAmqpUrl(stack.env, 'catalog'));
    connection.on('error', () => undefined);
    try {
      const channel = await connection.createConfirmChannel();
      const closed = new Promise<Error>((resolve) => channel.on('error', resolve));
      channel.sendToQueue(queueNames('admin', String(stack.env.EVENTS_EXCHANGE)).main, Buffer.from(JSON.stringify(changed)));
      await expect(channel.waitForConfirms()).rejects.toBeDefined();
      expect((await closed).message).toMatch(/ACCESS_REFUSED.*amq\.default/);
    } finally {
      await connection.close().catch(() => undefined);
    }
  });
});
