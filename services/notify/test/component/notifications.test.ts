import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import {
  eventConsumers,
  listBackOfficeNotifications,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  streamNotifications,
  type EventData,
  type EventType,
} from '@market/contracts';
import type { UserIdentity } from '@market/shared/auth';
import type { Queryable } from '@market/shared/db';
import { anonymous, asAdmin, asUser, componentPerSuite, eventually } from '@market/testkit';
import type { NotificationDraft } from '../../src/domain/notification-messages';
import { insertNotifications, notificationChannel } from '../../src/persistence/notification-repository';
import { listingSnapshot, orderSnapshot } from '../support';

const admin = uuidv7();

/** A user as notify sees one: the id events address, and the caller the gateway would assert. */
interface Party {
  id: string;
  as: UserIdentity;
}

function newParty(): Party {
  const as = asUser();
  return { id: as.sub, as };
}

interface Parties {
  renter: Party;
  owner: Party;
}

interface Case {
  name: string;
  type: EventType;
  data: (p: Parties) => unknown;
  /** what each party's notification says, by role; a role absent hears nothing */
  expect: Partial<Record<'renter' | 'owner', { title: string; body?: string; data?: Record<string, unknown> }>>;
  /** text no party's notification may contain */
  without?: string;
}

const walletSettled = (p: Parties, figures: Partial<EventData<'wallet.settled'>>): EventData<'wallet.settled'> => ({
  order_id: uuidv7(),
  renter_id: p.renter.id,
  owner_id: p.owner.id,
  listing_id: uuidv7(),
  listing_title: '王者荣耀 全英雄',
  ended_by: 'order.completed',
  outcome: 'settled',
  released: 0,
  owner_income: 0,
  platform_fee: 0,
  refund: 0,
  settled_at: new Date().toISOString(),
  ...figures,
});

const withdrawal = (p: Parties, overrides: Partial<EventData<'withdrawal.paid'>>): EventData<'withdrawal.paid'> => ({
  id: uuidv7(),
  user_id: p.owner.id,
  amount: 12_345,
  channel: 'alipay',
  payee_account_masked: 'own****om',
  payee_name_masked: '张*',
  status: 'paid',
  reason: null,
  created_at: new Date().toISOString(),
  decided_at: null,
  paid_at: null,
  finished_at: null,
  ...overrides,
});

const refund = (p: Parties, overrides: Partial<EventData<'refund.refunded'>>): EventData<'refund.refunded'> => ({
  id: uuidv7(),
  payment_id: uuidv7(),
  user_id: p.renter.id,
  provider: 'alipay',
  kind: 'user_request',
  amount: 3_000,
  reason: null,
  status: 'refunded',
  provider_refund_id: null,
  decided_by: admin,
  created_at: new Date().toISOString(),
  decided_at: new Date().toISOString(),
  refunded_at: null,
  finished_at: null,
  ...overrides,
});

const opsAlert = (): EventData<'ops.alert'> => ({
  alert: 'EVENT_WAITING',
  severity: 'critical',
  service: 'wallet',
  summary: 'wallet keeps failing to handle order.completed',
  subject_type: 'event',
  subject_id: uuidv7(),
  detail: { attempts: 9, type: 'order.completed', retried: true, ratio: 0.5 },
  raised_at: new Date().toISOString(),
});

const settled = { consumption: 2400, deposit_deduction: 1001, refund: 3999, owner_income: 3287, platform_fee: 114 };
/** 12 minutes past the grace at 800 fen an hour: 160 fen from the deposit, the fee 5 % of 2 560 */
const withOvertime = { consumption: 2400, overtime_minutes: 12, overtime_fee: 160, deposit_deduction: 0, refund: 4840, owner_income: 2432, platform_fee: 128 };

const listing = (p: Parties, overrides: Partial<EventData<'listing.approved'>> = {}): EventData<'listing.approved'> =>
  listingSnapshot(p.owner, { reason: null, actor_id: admin, ...overrides });

const CASES: Case[] = [
  {
    name: 'order.paid tells the owner to hand the account over, with the rent and deposit in yuan',
    type: 'order.paid',
    data: (p) => orderSnapshot(p.renter, p.owner),
    expect: { owner: { title: '订单已支付，请交付账号', body: '租金 ¥24.00，押金 ¥50.00', data: { rent: 2400, deposit: 5000, amount: 7400 } } },
  },
  {
    name: 'order.handed_off tells the renter to confirm',
    type: 'order.handed_off',
    data: (p) => ({ ...orderSnapshot(p.renter, p.owner, { status: 'pending_receive', actor_id: p.owner.id }) }),
    expect: { renter: { title: '账号已交付，请确认收货' } },
  },
  {
    name: 'order.checkout_requested tells the owner the proposed figures',
    type: 'order.checkout_requested',
    data: (p) => ({ ...orderSnapshot(p.renter, p.owner, { status: 'pending_checkout_confirm' }), consumption: 2400, deposit_deduction: 0, refund: 5000 }),
    expect: { owner: { title: '租客申请结算，请确认', body: '租金消耗 ¥24.00，押金扣除 ¥0.00，退还租客 ¥50.00', data: { consumption: 2400, refund: 5000 } } },
  },
  {
    name: 'order.checkout_countered tells the renter the owner’s figures and reason',
    type: 'order.checkout_countered',
    data: (p) => ({
      ...orderSnapshot(p.renter, p.owner, { status: 'pending_correction_confirm', actor_id: p.owner.id, reason: '皮肤被分解' }),
      consumption: 2400,
      deposit_deduction: 1234,
      refund: 3766,
    }),
    expect: { renter: { title: '卖家修改了结算，请确认', body: '押金扣除 ¥12.34，退还租客 ¥37.66。请接受或拒绝。原因：皮肤被分解' } },
  },
  {
    name: 'order.completed tells both parties the agreed figures, to the fen, and not that money arrived',
    type: 'order.completed',
    data: (p) => ({ ...orderSnapshot(p.renter, p.owner, { status: 'completed', actor_id: p.owner.id }), ...settled }),
    expect: {
      renter: { title: '订单已完成', body: '租金消耗 ¥24.00，押金扣除 ¥10.01，应退还您 ¥39.99，到账后另行通知', data: { refund: 3999 } },
      owner: { title: '订单已完成', body: '应得收入 ¥32.87（平台服务费 ¥1.14），到账后另行通知', data: { owner_income: 3287, platform_fee: 114 } },
    },
    without: '已到账',
  },
  {
    name: 'order.completed with overtime past the grace names it to both parties (ADR 0071)',
    type: 'order.completed',
    data: (p) => ({ ...orderSnapshot(p.renter, p.owner, { status: 'completed', actor_id: null }), ...withOvertime }),
    expect: {
      renter: { title: '订单已完成', body: '租金消耗 ¥24.00，超时 12 分钟计费 ¥1.60，押金扣除 ¥0.00，应退还您 ¥48.40', data: { overtime_minutes: 12, overtime_fee: 160 } },
      owner: { title: '订单已完成', body: '应得收入 ¥24.32（平台服务费 ¥1.28，含超时费 ¥1.60）', data: { overtime_fee: 160 } },
    },
  },
  {
    name: 'order.renewed tells both parties the hours added, their rent and the new end (ADR 0065)',
    type: 'order.renewed',
    data: (p) => ({
      ...orderSnapshot(p.renter, p.owner, { status: 'in_use', hours: 5, rent: 4000, amount: 9000, actor_id: p.renter.id }),
      renewal_id: uuidv7(),
      added_hours: 2,
      added_rent: 1600,
      previous_ends_at: '2026-11-22T11:00:00.000Z',
      ends_at: '2026-11-22T13:00:00.000Z',
    }),
    expect: {
      renter: { title: '订单已续租', body: '已续租 2 小时（租金 ¥16.00），到期时间延至 2026-11-22T13:00:00.000Z', data: { added_hours: 2, added_rent: 1600 } },
      owner: { title: '租客已续租', body: '续租 2 小时（租金 ¥16.00）', data: { added_rent: 1600 } },
    },
  },
  {
    name: 'order.ending_soon reminds the renter alone of the end (ADR 0065)',
    type: 'order.ending_soon',
    data: (p) => ({ order_id: uuidv7(), listing_id: uuidv7(), listing_title: '王者荣耀 全英雄', renter_id: p.renter.id, owner_id: p.owner.id, ends_at: '2026-11-22T13:00:00.000Z' }),
    expect: { renter: { title: '租期即将结束', body: '将于 2026-11-22T13:00:00.000Z 结束', data: { ends_at: '2026-11-22T13:00:00.000Z' } } },
  },
  {
    name: 'order.closed tells both parties it closed and why, and claims no money (an unpaid order has none to refund)',
    type: 'order.closed',
    data: (p) => ({
      ...orderSnapshot(p.renter, p.owner, { status: 'closed', actor_id: admin, reason: '账号无法登录' }),
      consumption: 0,
      deposit_deduction: 0,
      refund: 7400,
      owner_income: 0,
      platform_fee: 0,
    }),
    expect: {
      renter: { title: '订单已关闭', body: '「王者荣耀 全英雄」已关闭。原因：账号无法登录' },
      owner: { title: '订单已关闭' },
    },
    without: '¥',
  },
  {
    name: 'wallet.settled tells the owner the income and the renter the refund that reached their wallets',
    type: 'wallet.settled',
    data: (p) => walletSettled(p, { outcome: 'settled', released: 7400, owner_income: 3287, platform_fee: 114, refund: 3999 }),
    expect: {
      renter: { title: '退款已到账', body: '「王者荣耀 全英雄」退还您的 ¥39.99 已到账。', data: { refund: 3999 } },
      owner: { title: '收入已到账', body: '「王者荣耀 全英雄」的收入 ¥32.87 已到账（平台服务费 ¥1.14）。', data: { owner_income: 3287 } },
    },
  },
  {
    name: 'wallet.settled with overtime tells the owner it is in the income and the renter it was taken (ADR 0071)',
    type: 'wallet.settled',
    data: (p) => walletSettled(p, { outcome: 'settled', released: 7400, owner_income: 2432, platform_fee: 128, refund: 4840, overtime_fee: 160 }),
    expect: {
      renter: { title: '退款已到账', body: '退还您的 ¥48.40 已到账（已扣超时费 ¥1.60）。', data: { refund: 4840, overtime_fee: 160 } },
      owner: { title: '收入已到账', body: '的收入 ¥24.32 已到账（平台服务费 ¥1.28，含超时费 ¥1.60）。', data: { overtime_fee: 160 } },
    },
  },
  {
    name: 'wallet.settled of a whole refund tells the renter only',
    type: 'wallet.settled',
    data: (p) => walletSettled(p, { ended_by: 'order.closed', outcome: 'refunded', released: 7400, owner_income: 0, platform_fee: 0, refund: 7400 }),
    expect: { renter: { title: '退款已到账', body: '¥74.00 已到账' } },
  },
  {
    name: 'wallet.settled that refunds nothing tells the owner only',
    type: 'wallet.settled',
    data: (p) => walletSettled(p, { outcome: 'settled', released: 7400, owner_income: 7030, platform_fee: 370, refund: 0 }),
    expect: { owner: { title: '收入已到账', body: '¥70.30 已到账' } },
  },
  {
    name: 'withdrawal.paid tells the requester where the money went',
    type: 'withdrawal.paid',
    data: (p) => withdrawal(p, { status: 'paid' }),
    expect: { owner: { title: '提现已到账', body: '提现 ¥123.45 已转入您的支付宝账户 own****om。', data: { amount: 12_345 } } },
  },
  {
    name: 'withdrawal.rejected tells the requester the money is back, and why',
    type: 'withdrawal.rejected',
    data: (p) => ({ ...withdrawal(p, { status: 'rejected', reason: '收款账户异常' }), rejected_by: admin }),
    expect: { owner: { title: '提现未通过审核', body: '提现 ¥123.45 未通过审核，款项已退回余额。原因：收款账户异常' } },
  },
  {
    name: 'withdrawal.failed tells the requester the money is back',
    type: 'withdrawal.failed',
    data: (p) => withdrawal(p, { status: 'failed', reason: 'PAYEE_NOT_EXIST' }),
    expect: { owner: { title: '提现失败', body: '已退回余额' } },
  },
  {
    name: 'withdrawal.reversed tells the requester a paid withdrawal came back to the balance',
    type: 'withdrawal.reversed',
    data: (p) => withdrawal(p, { status: 'reversed', reason: '收款账户已注销' }),
    expect: { owner: { title: '提现被退回', body: '提现 ¥123.45 到账后被退回，款项已回到余额。原因：收款账户已注销' } },
  },
  {
    name: 'refund.refunded tells the user the money went back to how they paid',
    type: 'refund.refunded',
    data: (p) => refund(p, {}),
    expect: { renter: { title: '退款已原路退回', body: '¥30.00 已退回您充值时使用的支付方式。', data: { amount: 3_000 } } },
  },
  {
    name: 'refund.rejected tells the user why, their balance unchanged',
    type: 'refund.rejected',
    data: (p) => refund(p, { status: 'rejected', reason: '余额已用于订单' }),
    expect: { renter: { title: '退款申请未通过', body: '余额未变动。原因：余额已用于订单' } },
  },
  {
    name: 'refund.failed tells the user the money is back in the balance',
    type: 'refund.failed',
    data: (p) => refund(p, { status: 'failed', reason: 'TRADE_HAS_CLOSE' }),
    expect: { renter: { title: '退款失败', body: '已退回余额' } },
  },
  {
    name: 'ops.alert tells no user (it is the back office’s)',
    type: 'ops.alert',
    data: () => opsAlert(),
    expect: {},
  },
  {
    name: 'order.cancelled by the renter tells the owner only',
    type: 'order.cancelled',
    data: (p) => orderSnapshot(p.renter, p.owner, { status: 'cancelled', actor_id: p.renter.id }),
    expect: { owner: { title: '订单已取消' } },
  },
  {
    name: 'order.cancelled by the timeout scan tells both parties',
    type: 'order.cancelled',
    data: (p) => orderSnapshot(p.renter, p.owner, { status: 'cancelled', actor_id: null }),
    expect: { renter: { title: '订单已取消' }, owner: { title: '订单已取消' } },
  },
  {
    name: 'order.marked_abnormal tells both parties',
    type: 'order.marked_abnormal',
    data: (p) => orderSnapshot(p.renter, p.owner, { status: 'abnormal', actor_id: admin, reason: '涉嫌欺诈' }),
    expect: { renter: { title: '订单已标记异常', body: '原因：涉嫌欺诈' }, owner: { title: '订单已标记异常' } },
  },
  {
    name: 'dispute.opened tells both parties, each from their side',
    type: 'dispute.opened',
    data: (p) => ({ dispute_id: uuidv7(), order_id: uuidv7(), renter_id: p.renter.id, owner_id: p.owner.id, type: 'usage', raised_by: p.renter.id, reason: '账号被找回' }),
    expect: { renter: { title: '纠纷已提交' }, owner: { title: '对方发起了纠纷', body: '账号被找回' } },
  },
  {
    name: 'dispute.resolved tells both parties the ruling, not the money (wallet.settled tells that once it moved)',
    type: 'dispute.resolved',
    data: (p) => ({
      dispute_id: uuidv7(),
      order_id: uuidv7(),
      renter_id: p.renter.id,
      owner_id: p.owner.id,
      result: 'complete',
      note: '双方各担一半',
      resolved_by: admin,
      breakdown: settled,
    }),
    expect: {
      renter: { title: '纠纷已处理', body: '平台裁定订单完成结算，款项到账后另行通知。说明：双方各担一半', data: { result: 'complete' } },
      owner: { title: '纠纷已处理', body: '平台裁定订单完成结算，款项到账后另行通知。说明：双方各担一半', data: { result: 'complete' } },
    },
    without: '¥',
  },
  {
    name: 'listing.submitted tells no party (the back office hears of it on its own stream)',
    type: 'listing.submitted',
    data: (p) => listing(p, { status: 'draft', review_status: 'pending', actor_id: p.owner.id }),
    expect: {},
  },
  {
    name: 'listing.deleted tells no party',
    type: 'listing.deleted',
    data: (p) => listing(p, { status: 'deleted', review_status: 'pending', actor_id: p.owner.id }),
    expect: {},
  },
  {
    name: 'listing.marked_abnormal tells no party',
    type: 'listing.marked_abnormal',
    data: (p) => listing(p, { status: 'abnormal', review_status: 'pending' }),
    expect: {},
  },
  {
    name: 'listing.approved tells the owner',
    type: 'listing.approved',
    data: (p) => listing(p),
    expect: { owner: { title: '房源已通过审核' } },
  },
  {
    name: 'listing.rejected tells the owner why',
    type: 'listing.rejected',
    data: (p) => listing(p, { status: 'draft', review_status: 'rejected', reason: '截图不清晰' }),
    expect: { owner: { title: '房源未通过审核', body: '原因：截图不清晰' } },
  },
  {
    name: 'listing.offlined tells the owner why',
    type: 'listing.offlined',
    data: (p) => listing(p, { status: 'offline', reason: '违规' }),
    expect: { owner: { title: '房源已下架', body: '原因：违规' } },
  },
  {
    name: 'listing.rotation_required asks the owner to change the password before renting again',
    type: 'listing.rotation_required',
    data: (p) => ({ ...listing(p), order_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b' }),
    expect: { owner: { title: '请修改账号密码', body: '请先修改账号密码', data: { order_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b' } } },
  },
  {
    name: 'a recharge that succeeded tells the payer the amount',
    type: 'payment.succeeded',
    data: (p) => ({
      payment_id: uuidv7(),
      user_id: p.renter.id,
      amount: 10_001,
      purpose: 'recharge',
      order_id: null,
      gateway_txn_id: 'txn-1',
      paid_at: new Date().toISOString(),
    }),
    expect: { renter: { title: '充值成功', body: '¥100.01', data: { amount: 10_001 } } },
  },
  {
    name: 'an order paid from the balance is not told twice (order.paid covers it)',
    type: 'payment.succeeded',
    data: (p) => ({
      payment_id: uuidv7(),
      user_id: p.renter.id,
      amount: 7400,
      purpose: 'order',
      order_id: uuidv7(),
      gateway_txn_id: null,
      paid_at: new Date().toISOString(),
    }),
    expect: {},
  },
  {
    name: 'a recharge that failed tells the payer',
    type: 'payment.failed',
    data: (p) => ({ payment_id: uuidv7(), user_id: p.renter.id, amount: 5, purpose: 'recharge', gateway_txn_id: null, failed_at: new Date().toISOString() }),
    expect: { renter: { title: '充值失败', body: '充值 ¥0.05 未成功' } },
  },
  {
    name: 'user.frozen tells the user',
    type: 'user.frozen',
    data: (p) => ({ user_id: p.owner.id, reason: '刷单', frozen_by: admin, frozen_at: new Date().toISOString() }),
    expect: { owner: { title: '账号已被冻结', body: '原因：刷单' } },
  },
  {
    name: 'user.unfrozen tells the user',
    type: 'user.unfrozen',
    data: (p) => ({ user_id: p.owner.id, unfrozen_by: admin, unfrozen_at: new Date().toISOString() }),
    expect: { owner: { title: '账号已解冻' } },
  },
];

describe('notify alone: notifications built from events, read and marked', () => {
  const notify = componentPerSuite('notify');

  const db = () => notify.component.service.ctx.db;

  const list = async (who: Party, query: Record<string, string | number | boolean> = {}) => notify.component.ok(listNotifications, { as: who.as, query });

  const markRead = (id: string, who: Party, body: unknown = {}) => notify.component.call(markNotificationRead, { params: { id }, as: who.as, body });

  /** Publishes the event as its producer would, and waits until notify has handled it (its inbox holds the id). */
  const publish = async <T extends EventType>(type: T, data: EventData<T>, id?: string) => {
    const event = await notify.component.publish(type, data, id);
    await eventually(
      () => db().query(`SELECT 1 FROM inbox WHERE event_id = $1`, [event.id]),
      (rows: unknown[]) => rows.length === 1,
    );
    return event;
  };

  it('covers every event type notify consumes', () => {
    expect([...new Set(CASES.map((c) => c.type))].sort()).toEqual([...eventConsumers.notify].sort());
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s, and nobody else', async (_, c) => {
    const parties = { renter: newParty(), owner: newParty() };
    const stranger = newParty();
    const event = await publish(c.type, c.data(parties) as EventData<typeof c.type>);
    for (const role of ['renter', 'owner'] as const) {
      const { items, unread_count } = await list(parties[role]);
      const expected = c.expect[role];
      if (!expected) {
        expect({ role, items }).toEqual({ role, items: [] });
        continue;
      }
      expect(items).toHaveLength(1);
      expect(unread_count).toBe(1);
      const [n] = items;
      expect(n).toMatchObject({ user_id: parties[role].id, kind: c.type, title: expected.title, read: false, read_at: null });
      if (expected.body) expect(n!.body).toContain(expected.body);
      if (c.without) expect(n!.body).not.toContain(c.without);
      if (expected.data) expect(n!.data).toMatchObject(expected.data);
      expect(Date.parse(n!.created_at)).not.toBeNaN();
      const stored = await db().query(`SELECT event_id FROM notifications WHERE id = $1`, [n!.id]);
      expect(stored[0].event_id).toBe(event.id);
    }
    expect((await list(stranger)).items).toEqual([]);
  });

  it('keeps operator alerts for the back office: every admin reads them, users cannot', async () => {
    const alert = opsAlert();
    const event = await publish('ops.alert', alert);
    const page = await notify.component.ok(listBackOfficeNotifications, { as: asAdmin(), query: { limit: 100 } });
    const mine = page.items.filter((n) => n.biz_id === alert.subject_id);
    expect(mine).toEqual([
      expect.objectContaining({
        user_id: 'back-office',
        kind: 'ops.alert',
        title: '[critical] EVENT_WAITING · wallet',
        body: alert.summary,
        biz_type: 'ops',
        data: { alert: 'EVENT_WAITING', severity: 'critical', service: 'wallet', subject_type: 'event', subject_id: alert.subject_id, attempts: 9, type: 'order.completed', retried: 'true', ratio: '0.5' },
      }),
    ]);
    const stored = await db().query(`SELECT event_id FROM notifications WHERE id = $1`, [mine[0]!.id]);
    expect(stored[0].event_id).toBe(event.id);
    expect((await notify.component.call(listBackOfficeNotifications, { as: asUser() })).status).toBe(401);
    expect((await notify.component.call(listBackOfficeNotifications)).status).toBe(401);
  });

  it('links order notifications to the order and listing', async () => {
    const parties = { renter: newParty(), owner: newParty() };
    const order = orderSnapshot(parties.renter, parties.owner);
    await publish('order.paid', order);
    const [n] = (await list(parties.owner)).items;
    expect(n).toMatchObject({ biz_type: 'order', biz_id: order.order_id, data: { order_id: order.order_id, listing_id: order.listing_id, role: 'owner' } });
  });

  it('tells the owner of a listing the back office approved', async () => {
    const parties = { renter: newParty(), owner: newParty() };
    const approved = listing(parties, { title: '和平精英 战神', game: '和平精英' });
    await publish('listing.approved', approved);
    const [n] = (await list(parties.owner)).items;
    expect(n).toMatchObject({ kind: 'listing.approved', biz_type: 'listing', biz_id: approved.listing_id, body: '「和平精英 战神」已通过审核并上架。' });
  });

  it('creates no duplicate when an event is delivered again', async () => {
    const parties = { renter: newParty(), owner: newParty() };
    const first = await publish('order.completed', { ...orderSnapshot(parties.renter, parties.owner, { status: 'completed' }), ...settled });
    await publish('order.completed', first.data, first.id);
    await publish('order.completed', first.data, first.id);
    expect((await list(parties.renter)).items).toHaveLength(1);
    expect((await list(parties.owner)).items).toHaveLength(1);
  });

  describe('numbering a user\'s notifications', () => {
    const draft = (userId: string, title: string, data: NotificationDraft['data'] = {}): NotificationDraft => ({
      user_id: userId,
      kind: 'user.unfrozen',
      title,
      body: `${title}。`,
      data,
      biz_type: 'user',
      biz_id: userId,
    });

    /** Each user's notifications as [seq, title, event], in seq order, and their streams' last seq. */
    const numbered = async (q: Queryable, users: string[]) => {
      const rows: Array<{ user_id: string; seq: string; title: string; event_id: string }> = await q.query(
        `SELECT user_id, seq, title, event_id FROM notifications WHERE user_id = ANY($1::text[]) ORDER BY user_id, seq`,
        [users],
      );
      const streams: Array<{ user_id: string; last_seq: string }> = await q.query(`SELECT user_id, last_seq FROM notification_streams WHERE user_id = ANY($1::text[])`, [users]);
      return Object.fromEntries(
        users.map((user) => [
          user,
          {
            rows: rows.filter((r) => r.user_id === user).map((r) => [Number(r.seq), r.title, r.event_id]),
            last_seq: Number(streams.find((s) => s.user_id === user)?.last_seq ?? 0),
          },
        ]),
      );
    };

    it('numbers every user of the events of one transaction gap-free in the order given, keeps the data, and announces each user at commit', async () => {
      const { ctx } = notify.component.service;
      const channel = notificationChannel(ctx.schema);
      const [a, b] = [uuidv7(), uuidv7()];
      const events = [uuidv7(), uuidv7(), uuidv7()];
      const data = { quoted: 'say "hi" \\ {x,y} 你好', amount: 7, none: null };
      await db().transaction((tx) => insertNotifications(tx, channel, [{ eventId: events[0]!, drafts: [draft(a, 'a1')] }]));

      const listener = new Client({ connectionString: ctx.config.DATABASE_URL });
      await listener.connect();
      const announced: string[] = [];
      try {
        listener.on('notification', (n) => announced.push(n.payload!));
        await listener.query(`LISTEN "${channel}"`);
        // two events in one statement, as an inbox batch writes them, each naming the users out of order
        await db().transaction((tx) =>
          insertNotifications(tx, channel, [
            { eventId: events[1]!, drafts: [draft(b, 'b1', data), draft(a, 'a2')] },
            { eventId: events[2]!, drafts: [draft(a, 'a3'), draft(b, 'b2')] },
          ]),
        );
        await eventually(async () => announced.length, (n) => n >= 2);
      } finally {
        await listener.end();
      }
      // Postgres delivers a transaction's identical notifications once
      expect([...announced].sort()).toEqual([a, b].sort());

      expect(await numbered(db(), [a, b])).toEqual({
        [a]: { rows: [[1, 'a1', events[0]], [2, 'a2', events[1]], [3, 'a3', events[2]]], last_seq: 3 },
        [b]: { rows: [[1, 'b1', events[1]], [2, 'b2', events[2]]], last_seq: 2 },
      });
      const stored: Array<{ id: string; data: unknown; kind: string; body: string; biz_type: string; biz_id: string }> = await db().query(
        `SELECT id, data, kind, body, biz_type, biz_id FROM notifications WHERE user_id = ANY($1::text[])`,
        [[a, b]],
      );
      expect(new Set(stored.map((n) => n.id)).size).toBe(5);
      for (const n of stored) expect(n.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(stored.find((n) => n.body === 'b1。')).toMatchObject({ data, kind: 'user.unfrozen', biz_type: 'user', biz_id: b });
    });

    it('numbers several notifications of one user in one event in the order given, after the user\'s earlier ones', async () => {
      const channel = notificationChannel(notify.component.service.ctx.schema);
      const [a, b] = [uuidv7(), uuidv7()];
      const earlier = uuidv7();
      const event = uuidv7();
      const drafts = [draft(a, 'a2'), draft(b, 'b1'), draft(a, 'a3'), draft(b, 'b2'), draft(a, 'a4')];
      await db().transaction((tx) => insertNotifications(tx, channel, [{ eventId: earlier, drafts: [draft(a, 'a1')] }]));

      // The schema holds one notification per user and event ((event_id, user_id) is unique); the
      // numbering must not rest on that, so this lifts it in a transaction that is rolled back.
      const undo = new Error('rolled back');
      let inside: Awaited<ReturnType<typeof numbered>> = {};
      await expect(
        db().transaction(async (tx) => {
          await tx.query(`ALTER TABLE notifications DROP CONSTRAINT notifications_event_id_user_id_key`);
          await insertNotifications(tx, channel, [{ eventId: event, drafts }]);
          inside = await numbered(tx, [a, b]);
          throw undo;
        }),
      ).rejects.toBe(undo);
      expect(inside).toEqual({
        [a]: { rows: [[1, 'a1', earlier], [2, 'a2', event], [3, 'a3', event], [4, 'a4', event]], last_seq: 4 },
        [b]: { rows: [[1, 'b1', event], [2, 'b2', event]], last_seq: 2 },
      });

      // with the schema as it is, such an event is refused whole: no row, and no number taken
      await expect(db().transaction((tx) => insertNotifications(tx, channel, [{ eventId: event, drafts }]))).rejects.toMatchObject({
        driverError: expect.objectContaining({ code: '23505', constraint: 'notifications_event_id_user_id_key' }),
      });
      expect(await numbered(db(), [a, b])).toEqual({
        [a]: { rows: [[1, 'a1', earlier]], last_seq: 1 },
        [b]: { rows: [], last_seq: 0 },
      });
    });
  });

  it('lets nobody but the addressee read or mark a notification (404, as for one that does not exist)', async () => {
    const parties = { renter: newParty(), owner: newParty() };
    await publish('order.paid', orderSnapshot(parties.renter, parties.owner));
    const [n] = (await list(parties.owner)).items;
    const stranger = newParty();

    for (const who of [stranger, parties.renter]) {
      const refused = await markRead(n!.id, who);
      expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect((await list(who)).items.map((i) => i.id)).not.toContain(n!.id);
    }
    expect((await markRead(uuidv7(), parties.owner)).status).toBe(404);
    expect((await markRead('not-a-uuid', parties.owner)).status).toBe(404);
    expect((await list(parties.owner)).items[0]).toMatchObject({ id: n!.id, read: false });
  });

  it('marks a notification read once: a repeat answers the same read time and the count stays down', async () => {
    const parties = { renter: newParty(), owner: newParty() };
    await publish('order.closed', { ...orderSnapshot(parties.renter, parties.owner, { status: 'closed' }), ...settled });
    const [n] = (await list(parties.renter)).items;

    const first = await markRead(n!.id, parties.renter);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: n!.id, read: true });
    expect(Date.parse(first.body.read_at)).not.toBeNaN();
    const again = await markRead(n!.id, parties.renter);
    expect(again.status).toBe(200);
    expect(again.body.read_at).toBe(first.body.read_at);
    expect((await list(parties.renter)).unread_count).toBe(0);
    expect((await markRead(n!.id, parties.renter, { extra: 1 })).status).toBe(400);
  });

  it('filters unread and read ones, counts the unread, and marks them all read', async () => {
    const user = newParty();
    const other = newParty();
    for (let i = 0; i < 4; i++) await publish('user.unfrozen', { user_id: user.id, unfrozen_by: admin, unfrozen_at: new Date().toISOString() });
    await publish('user.unfrozen', { user_id: other.id, unfrozen_by: admin, unfrozen_at: new Date().toISOString() });
    const all = await list(user);
    expect(all.unread_count).toBe(4);
    await notify.component.ok(markNotificationRead, { params: { id: all.items[1]!.id }, as: user.as });

    const unread = await list(user, { unread: true });
    expect(unread.items.map((i) => i.id)).toEqual([all.items[0]!.id, all.items[2]!.id, all.items[3]!.id]);
    expect(unread.unread_count).toBe(3);
    expect((await list(user, { unread: false })).items.map((i) => i.id)).toEqual([all.items[1]!.id]);
    expect((await notify.component.call(listNotifications, { as: user.as, query: { unread: 'yes' } })).status).toBe(400);

    expect(await notify.component.ok(markAllNotificationsRead, { as: user.as })).toEqual({ marked: 3, unread_count: 0 });
    expect((await list(user, { unread: true })).items).toEqual([]);
    expect(await notify.component.ok(markAllNotificationsRead, { as: user.as })).toEqual({ marked: 0, unread_count: 0 });
    expect((await list(other)).unread_count).toBe(1);
  });

  it('pages newest first with the kit pager: every notification once, and a foreign cursor is refused', async () => {
    const user = newParty();
    for (let i = 0; i < 7; i++) {
      await publish('payment.failed', { payment_id: uuidv7(), user_id: user.id, amount: i + 1, purpose: 'recharge', gateway_txn_id: null, failed_at: new Date().toISOString() });
    }
    const seen: Array<{ data: Record<string, unknown> }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof list>> = await list(user, cursor ? { limit: 3, cursor } : { limit: 3 });
      seen.push(...page.items);
      expect(page.unread_count).toBe(7);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((n) => n.data.amount)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const bad = await notify.component.call(listNotifications, { as: user.as, query: { cursor: 'bm9wZQ' } });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await notify.component.call(listNotifications, { as: user.as, query: { limit: 101 } })).status).toBe(400);
  });

  it('refuses callers without a user', async () => {
    expect((await notify.component.call(listNotifications, { as: anonymous })).status).toBe(401);
    expect((await notify.component.call(markAllNotificationsRead, { as: anonymous })).status).toBe(401);
    expect((await notify.component.call(streamNotifications, { as: anonymous })).status).toBe(401);
    expect((await notify.component.call(listNotifications, { as: asAdmin() })).status).toBe(401);
  });
});
