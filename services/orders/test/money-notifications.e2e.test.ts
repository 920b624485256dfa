import { eventually, marketPerSuite, type MarketCaller as Caller, outboxEvents } from '@market/testkit';

/**
 * Issue 19 items 1 and 4, across the real services: what parties read about money is only what the
 * wallet did. An admin close of an unpaid order refunds nothing and says so; a paid one tells the
 * renter the refund once the wallet moved it (wallet.settled).
 */
describe('notifications about money follow the ledger', () => {
  const own = marketPerSuite({ services: ['identity', 'catalog', 'orders', 'wallet', 'files', 'admin', 'notify'] });

  const notifications = async (user: Caller) =>
    (await own.market.client.get('/api/notifications?limit=100', user.token)).body.items as Array<{ kind: string; title: string; body: string; data: Record<string, unknown> }>;
  const walletHandled = async (eventId: string) => (await own.stack.services.wallet!.ctx.db.query(`SELECT 1 FROM inbox WHERE event_id = $1`, [eventId])).length === 1;

  it('an admin close of an unpaid order tells the renter it closed, and of no refund', async () => {
    const { stack, market } = own;
    const owner = await market.user();
    const renter = await market.user();
    const listing = await market.onlineListing(owner);
    const order = await market.order(renter, listing.id);
    const closed = await market.client.post(`/api/admin/orders/${order.id}/close`, { reason: '房源信息有误' }, await market.admin());
    expect(closed.status).toBe(200);
    const [event] = await market.ordersEvents('order.closed', order.id);
    await eventually(() => walletHandled(event!.id), Boolean);
    const told = await eventually(() => notifications(renter), (items) => items.some((n) => n.kind === 'order.closed'), 15_000);
    expect(told.find((n) => n.kind === 'order.closed')).toMatchObject({ title: '订单已关闭', body: '「王者荣耀 全英雄」已关闭。原因：房源信息有误' });
    expect(told.filter((n) => n.body.includes('¥') || n.body.includes('退'))).toEqual([]);
    expect((await outboxEvents(stack, 'wallet', 'wallet.settled')).filter((e) => e.data.order_id === order.id)).toEqual([]);
  });

  it('a renewal tells both parties the hours and the rent it added (ADR 0065)', async () => {
    const { market } = own;
    const owner = await market.user();
    const renter = await market.fundedUser(50_000);
    const order = await market.order(renter, (await market.onlineListing(owner)).id);
    await market.act(order.id, 'pay', renter);
    await market.act(order.id, 'handoff', owner, { content: 'account 10001 / password hunter2' });
    await market.act(order.id, 'confirm-receive', renter);
    const renewed = await market.act(order.id, 'renew', renter, { hours: 2 });
    for (const party of [renter, owner]) {
      const told = await eventually(() => notifications(party), (items) => items.some((n) => n.kind === 'order.renewed'), 15_000);
      expect(told.find((n) => n.kind === 'order.renewed')).toMatchObject({
        body: expect.stringContaining(`续租 2 小时（租金 ¥16.00），到期时间延至 ${renewed.ends_at}`),
        data: { order_id: order.id, role: party === renter ? 'renter' : 'owner', amount: order.amount + 1600, added_hours: 2, added_rent: 1600 },
      });
    }
  });

  it('an admin close of a paid order tells the renter the refund that reached the wallet, to the fen', async () => {
    const { market } = own;
    const owner = await market.user();
    const renter = await market.fundedUser(50_000);
    const listing = await market.onlineListing(owner);
    const order = await market.order(renter, listing.id);
    await market.act(order.id, 'pay', renter);
    const closed = await market.client.post(`/api/admin/orders/${order.id}/close`, { reason: '账号无法登录' }, await market.admin());
    expect(closed.status).toBe(200);
    const told = await eventually(() => notifications(renter), (items) => items.some((n) => n.kind === 'wallet.settled'), 15_000);
    expect(told.find((n) => n.kind === 'wallet.settled')).toMatchObject({
      title: '退款已到账',
      body: `「王者荣耀 全英雄」退还您的 ¥${order.amount / 100}.00 已到账。`,
      data: { order_id: order.id, refund: order.amount },
    });
    expect(await market.balance(renter)).toMatchObject({ available: 50_000, frozen: 0 });
    expect((await notifications(owner)).filter((n) => n.kind === 'wallet.settled')).toEqual([]);
  });
});
