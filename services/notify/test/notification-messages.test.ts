import { eventConsumers } from '@market/contracts';
import { notificationsFor, yuan } from '../src/domain/notification-messages';

/** A fixed id of the cases, by its last two hex digits: `id('5b')`. */
const id = (last: string) => `0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a${last}`;

/** The order the renewal and end-reminder cases are about, as its events name it. */
const AN_ORDER = { order_id: id('5b'), listing_id: id('5c'), listing_title: '王者荣耀 全英雄', renter_id: id('5d'), owner_id: id('5e') };

describe('amounts in notifications', () => {
  it('show integer fen as yuan with two decimals, exactly', () => {
    expect(yuan(0)).toBe('¥0.00');
    expect(yuan(5)).toBe('¥0.05');
    expect(yuan(10)).toBe('¥0.10');
    expect(yuan(1999)).toBe('¥19.99');
    // 0.29 * 100 is 28.999999999999996 in floating point: the figure must not go through one
    expect(yuan(29)).toBe('¥0.29');
    expect(yuan(123_456_789)).toBe('¥1234567.89');
    expect(yuan(1_000_000_000)).toBe('¥10000000.00');
  });
});

describe('the message table', () => {
  it('says nothing for an event type notify does not tell anyone about', () => {
    expect(eventConsumers.notify).not.toContain('listing.updated');
    expect(
      notificationsFor('listing.updated', {
        listing_id: 'l',
        owner_id: 'o',
        title: 't',
        game: 'g',
        hourly_price: 1,
        deposit: 0,
        min_hours: 1,
        max_hours: null,
        status: 'draft',
        review_status: 'none',
        updated_at: new Date().toISOString(),
      }),
    ).toEqual([]);
  });
});

describe('withdrawal notifications', () => {
  const w = {
    id: id('5b'),
    user_id: id('5c'),
    amount: 12_345,
    channel: 'alipay' as const,
    payee_account_masked: 'own****om',
    payee_name_masked: '张*',
    reason: '收款账户异常',
    created_at: new Date().toISOString(),
    decided_at: null,
    paid_at: null,
    finished_at: null,
  };

  it('tell the requester what happened to the money, from the event’s own figures', () => {
    expect(notificationsFor('withdrawal.paid', { ...w, status: 'paid', reason: null })).toEqual([
      expect.objectContaining({ user_id: w.user_id, kind: 'withdrawal.paid', body: '提现 ¥123.45 已转入您的支付宝账户 own****om。', biz_id: w.id }),
    ]);
    expect(notificationsFor('withdrawal.rejected', { ...w, status: 'rejected', rejected_by: w.id })[0]!.body).toBe(
      '提现 ¥123.45 未通过审核，款项已退回余额。原因：收款账户异常',
    );
    expect(notificationsFor('withdrawal.failed', { ...w, status: 'failed', reason: 'PAYEE_NOT_EXIST' })[0]!.body).toContain('已退回余额');
    expect(notificationsFor('withdrawal.reversed', { ...w, status: 'reversed', reason: 'PAYEE_ACCOUNT_STATUS_ERROR' })).toEqual([
      expect.objectContaining({
        user_id: w.user_id,
        kind: 'withdrawal.reversed',
        title: '提现被退回',
        body: '提现 ¥123.45 到账后被退回，款项已回到余额。原因：PAYEE_ACCOUNT_STATUS_ERROR',
        biz_id: w.id,
      }),
    ]);
  });
});

describe('arbitration notifications', () => {
  const resolved = {
    dispute_id: id('5b'),
    order_id: id('5c'),
    renter_id: id('5d'),
    owner_id: id('5e'),
    note: '',
    resolved_by: id('5f'),
    breakdown: { consumption: 2400, deposit_deduction: 1001, refund: 3999, owner_income: 3287, platform_fee: 114 },
  };

  it.each(['complete', 'close', 'mark_abnormal'] as const)('state the %s ruling to both parties without an amount: wallet.settled tells the money once it moved', (result) => {
    const drafts = notificationsFor('dispute.resolved', { ...resolved, result });
    expect(drafts.map((d) => d.user_id)).toEqual([resolved.renter_id, resolved.owner_id]);
    for (const d of drafts) {
      expect(d.body).not.toMatch(/¥|\d/);
      expect(d.data).toEqual({ order_id: resolved.order_id, dispute_id: resolved.dispute_id, role: d.data.role, result });
    }
  });
});

describe('renewal notifications', () => {
  it('tell both parties the hours added, their rent and the new end (ADR 0065)', () => {
    const renewed = {
      ...AN_ORDER,
      status: 'in_use' as const,
      rent: 4_000,
      deposit: 5_000,
      amount: 9_000,
      hours: 5,
      reason: null,
      actor_id: id('5d'),
      renewal_id: id('5f'),
      added_hours: 2,
      added_rent: 1_600,
      previous_ends_at: '2026-11-28T10:00:00.000Z',
      ends_at: '2026-11-28T12:00:00.000Z',
    };
    expect(eventConsumers.notify).toContain('order.renewed');
    expect(notificationsFor('order.renewed', renewed)).toEqual([
      expect.objectContaining({ user_id: renewed.renter_id, kind: 'order.renewed', body: expect.stringContaining('续租 2 小时（租金 ¥16.00）'), data: expect.objectContaining({ added_rent: 1_600, amount: 9_000 }) }),
      expect.objectContaining({ user_id: renewed.owner_id, kind: 'order.renewed', body: expect.stringContaining('2026-11-28T12:00:00.000Z') }),
    ]);
  });
});

describe('end reminders', () => {
  it('tell the renter alone when the rental ends', () => {
    const ending = {
      ...AN_ORDER,
      ends_at: '2026-11-28T12:00:00.000Z',
    };
    expect(eventConsumers.notify).toContain('order.ending_soon');
    expect(notificationsFor('order.ending_soon', ending)).toEqual([
      expect.objectContaining({ user_id: ending.renter_id, kind: 'order.ending_soon', title: '租期即将结束', body: expect.stringContaining('2026-11-28T12:00:00.000Z'), biz_id: ending.order_id }),
    ]);
  });
});

describe('overtime in checkout and settlement notifications (ADR 0071)', () => {
  const ids = { order_id: id('61'), listing_id: id('62'), renter_id: id('63'), owner_id: id('64') };
  const order = { ...ids, listing_title: '王者荣耀', rent: 2400, deposit: 5000, amount: 7400, hours: 3, actor_id: null };
  const figures = { consumption: 2400, overtime_minutes: 12, overtime_fee: 160, deposit_deduction: 0, refund: 4840, owner_income: 2432, platform_fee: 128 };
  const settled = {
    ...ids,
    listing_title: '王者荣耀',
    ended_by: 'order.completed' as const,
    outcome: 'settled' as const,
    released: 7400,
    owner_income: 2432,
    platform_fee: 128,
    refund: 4840,
    settled_at: new Date().toISOString(),
  };

  it('name the overtime charged in the checkout, the completion and the money paid out', () => {
    const [requested] = notificationsFor('order.checkout_requested', { ...order, status: 'pending_checkout_confirm', ...figures });
    expect(requested).toMatchObject({
      user_id: ids.owner_id,
      body: '「王者荣耀」申请结算：租金消耗 ¥24.00，超时 12 分钟计费 ¥1.60，押金扣除 ¥0.00，退还租客 ¥48.40。请确认或提出修改。',
      data: { overtime_minutes: 12, overtime_fee: 160 },
    });
    const [renter, owner] = notificationsFor('order.completed', { ...order, status: 'completed', ...figures });
    expect(renter!.body).toBe('「王者荣耀」已结算：租金消耗 ¥24.00，超时 12 分钟计费 ¥1.60，押金扣除 ¥0.00，应退还您 ¥48.40，到账后另行通知。');
    expect(owner!.body).toBe('「王者荣耀」已结算：应得收入 ¥24.32（平台服务费 ¥1.28，含超时费 ¥1.60），到账后另行通知。');
    const paid = notificationsFor('wallet.settled', { ...settled, overtime_fee: 160 });
    expect(paid.map((n) => n.body)).toEqual(['「王者荣耀」的收入 ¥24.32 已到账（平台服务费 ¥1.28，含超时费 ¥1.60）。', '「王者荣耀」退还您的 ¥48.40 已到账（已扣超时费 ¥1.60）。']);
  });

  it('say nothing of overtime when none was charged', () => {
    const none = { ...figures, overtime_minutes: 0, overtime_fee: 0, refund: 5000, owner_income: 2280, platform_fee: 120 };
    const [renter, owner] = notificationsFor('order.completed', { ...order, status: 'completed', ...none });
    expect(renter!.body).toBe('「王者荣耀」已结算：租金消耗 ¥24.00，押金扣除 ¥0.00，应退还您 ¥50.00，到账后另行通知。');
    expect(owner!.body).toBe('「王者荣耀」已结算：应得收入 ¥22.80（平台服务费 ¥1.20），到账后另行通知。');
    expect(renter!.data).not.toHaveProperty('overtime_fee');
    expect(notificationsFor('wallet.settled', settled).map((n) => n.body)).toEqual(['「王者荣耀」的收入 ¥24.32 已到账（平台服务费 ¥1.28）。', '「王者荣耀」退还您的 ¥48.40 已到账。']);
  });
});
