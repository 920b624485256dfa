import type { EventData, EventType } from '@market/contracts';

/** One notification to write, before it has an id or a place in its user's stream. */
export interface NotificationDraft {
  user_id: string;
  kind: EventType;
  title: string;
  body: string;
  data: Record<string, string | number | null>;
  biz_type: 'order' | 'listing' | 'payment' | 'user' | 'ops';
  biz_id: string;
}

/**
 * The recipient of the back office's notifications (`ops.alert`): every admin reads them
 * (`GET /api/admin/notifications`); no user id can take this form.
 */
export const BACK_OFFICE = 'back-office';

/** Integer fen as yuan with two decimals, by integer arithmetic (never through a float). */
export function yuan(fen: number): string {
  const sign = fen < 0 ? '-' : '';
  const abs = Math.abs(fen);
  return `${sign}¥${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Notification data holds strings, integers and nulls; an alert's other details are written as text. */
function scalarDetail(detail: Record<string, string | number | boolean | null>): Record<string, string | number | null> {
  return Object.fromEntries(
    Object.entries(detail).map(([k, v]) => [k, typeof v === 'boolean' || (typeof v === 'number' && !Number.isInteger(v)) ? String(v) : v]),
  );
}

const withReason = (text: string, reason: string | null | undefined) => (reason ? `${text}原因：${reason}` : text);

type Role = 'renter' | 'owner';

function orderDraft(
  type: EventType,
  order: EventData<'order.cancelled'>,
  role: Role,
  title: string,
  body: string,
  amounts: Record<string, number | undefined> = {},
): NotificationDraft {
  const figures = Object.fromEntries(Object.entries(amounts).filter((entry): entry is [string, number] => entry[1] !== undefined));
  return {
    user_id: role === 'renter' ? order.renter_id : order.owner_id,
    kind: type,
    title,
    body,
    data: {
      order_id: order.order_id,
      listing_id: order.listing_id,
      role,
      amount: order.amount,
      ...figures,
    },
    biz_type: 'order',
    biz_id: order.order_id,
  };
}

/** The parties that did not cause the move (the timeout scan, `actor_id` null, is neither). */
function otherParties(order: { renter_id: string; owner_id: string; actor_id?: string | null }, among: Role[] = ['renter', 'owner']): Role[] {
  return among.filter((role) => (role === 'renter' ? order.renter_id : order.owner_id) !== order.actor_id);
}

/** The overtime charged past the free minutes (ADR 0071), told only when there was any. */
function overtimeText(s: { overtime_minutes?: number; overtime_fee?: number }): string | null {
  return s.overtime_fee ? `超时 ${s.overtime_minutes ?? 0} 分钟计费 ${yuan(s.overtime_fee)}` : null;
}

/** The overtime figures a notification's data carries, when there was any. */
function overtimeData(s: { overtime_minutes?: number; overtime_fee?: number }): Record<string, number> {
  return s.overtime_fee ? { overtime_minutes: s.overtime_minutes ?? 0, overtime_fee: s.overtime_fee } : {};
}

/** `text`, and the overtime fee it includes when there was any (ADR 0071). */
function withOvertime(text: string, s: { overtime_fee?: number }): string {
  return s.overtime_fee ? `${text}，含超时费 ${yuan(s.overtime_fee)}` : text;
}

function settlementText(s: { consumption?: number; overtime_minutes?: number; overtime_fee?: number; deposit_deduction?: number; refund?: number }): string {
  const parts = [
    s.consumption !== undefined ? `租金消耗 ${yuan(s.consumption)}` : null,
    overtimeText(s),
    s.deposit_deduction !== undefined ? `押金扣除 ${yuan(s.deposit_deduction)}` : null,
    s.refund !== undefined ? `退还租客 ${yuan(s.refund)}` : null,
  ].filter(Boolean);
  return parts.length > 0 ? `${parts.join('，')}。` : '';
}

function listingDraft(type: EventType, listing: EventData<'listing.approved'>, title: string, body: string): NotificationDraft[] {
  return [
    {
      user_id: listing.owner_id,
      kind: type,
      title,
      body,
      data: { listing_id: listing.listing_id },
      biz_type: 'listing',
      biz_id: listing.listing_id,
    },
  ];
}

// The ruling only: the money it moves is told from the wallet's wallet.settled once it moved (ADR 0026).
const ARBITRATION_TEXT = {
  complete: '平台裁定订单完成结算，款项到账后另行通知。',
  close: '平台裁定关闭订单，款项到账后另行通知。',
  mark_abnormal: '平台将订单标记为异常，款项暂时冻结。',
} as const;

/** A withdrawal's news for its requester: amounts from the event itself. */
function withdrawalDraft(type: EventType, w: EventData<'withdrawal.paid'>, title: string, body: string): NotificationDraft {
  return { user_id: w.user_id, kind: type, title, body, data: { withdrawal_id: w.id, amount: w.amount }, biz_type: 'payment', biz_id: w.id };
}

/** A refund's news for its user: amounts from the event itself. */
function refundDraft(type: EventType, r: EventData<'refund.refunded'>, title: string, body: string): NotificationDraft {
  return { user_id: r.user_id, kind: type, title, body, data: { refund_id: r.id, payment_id: r.payment_id, amount: r.amount }, biz_type: 'payment', biz_id: r.id };
}

/**
 * Who learns of each event and what they read: the party that must act next, both parties when
 * the order ended, the party whose wallet money reached (only from the wallet's own wallet.settled,
 * so it is only ever told once the ledger moved), the owner for review outcomes, the user for their
 * own account and payments, the back office for operator alerts. Texts are Chinese throughout;
 * amounts are yuan from integer fen.
 */
const MESSAGES: { [T in EventType]?: (data: EventData<T>) => NotificationDraft[] } = {
  'order.paid': (o) => [
    orderDraft('order.paid', o, 'owner', '订单已支付，请交付账号', `租客已支付「${o.listing_title}」的订单（${o.hours} 小时，租金 ${yuan(o.rent)}，押金 ${yuan(o.deposit)}），请尽快交付账号。`, {
      rent: o.rent,
      deposit: o.deposit,
    }),
  ],
  'order.handed_off': (o) => [
    orderDraft('order.handed_off', o, 'renter', '账号已交付，请确认收货', `「${o.listing_title}」的账号已交付，请查看交付信息并确认账号可用。`),
  ],
  'order.ending_soon': (o) => [
    {
      user_id: o.renter_id,
      kind: 'order.ending_soon',
      title: '租期即将结束',
      body: `「${o.listing_title}」的租期将于 ${o.ends_at} 结束，如需继续使用请及时续租。`,
      data: { order_id: o.order_id, listing_id: o.listing_id, role: 'renter', ends_at: o.ends_at },
      biz_type: 'order',
      biz_id: o.order_id,
    },
  ],
  'order.renewed': (o) => [
    orderDraft('order.renewed', o, 'renter', '订单已续租', `「${o.listing_title}」已续租 ${o.added_hours} 小时（租金 ${yuan(o.added_rent)}），到期时间延至 ${o.ends_at}。`, {
      added_hours: o.added_hours,
      added_rent: o.added_rent,
    }),
    orderDraft('order.renewed', o, 'owner', '租客已续租', `租客为「${o.listing_title}」续租 ${o.added_hours} 小时（租金 ${yuan(o.added_rent)}），到期时间延至 ${o.ends_at}。`, {
      added_hours: o.added_hours,
      added_rent: o.added_rent,
    }),
  ],
  'order.checkout_requested': (o) => [
    orderDraft('order.checkout_requested', o, 'owner', '租客申请结算，请确认', `「${o.listing_title}」申请结算：${settlementText(o)}请确认或提出修改。`, {
      consumption: o.consumption,
      deposit_deduction: o.deposit_deduction,
      refund: o.refund,
      ...overtimeData(o),
    }),
  ],
  'order.checkout_countered': (o) => [
    orderDraft('order.checkout_countered', o, 'renter', '卖家修改了结算，请确认', withReason(`「${o.listing_title}」的结算被修改：${settlementText(o)}请接受或拒绝。`, o.reason), {
      consumption: o.consumption,
      deposit_deduction: o.deposit_deduction,
      refund: o.refund,
      ...overtimeData(o),
    }),
  ],
  // What the order says was agreed; the money itself is told from wallet.settled, once it moved.
  'order.completed': (o) => [
    orderDraft('order.completed', o, 'renter', '订单已完成', `「${o.listing_title}」已结算：租金消耗 ${yuan(o.consumption)}，${overtimeText(o) ? `${overtimeText(o)}，` : ''}押金扣除 ${yuan(o.deposit_deduction)}，应退还您 ${yuan(o.refund)}，到账后另行通知。`, {
      consumption: o.consumption,
      deposit_deduction: o.deposit_deduction,
      refund: o.refund,
      ...overtimeData(o),
    }),
    orderDraft('order.completed', o, 'owner', '订单已完成', `「${o.listing_title}」已结算：应得收入 ${yuan(o.owner_income)}（${withOvertime('平台服务费 ' + yuan(o.platform_fee), o)}），到账后另行通知。`, {
      consumption: o.consumption,
      deposit_deduction: o.deposit_deduction,
      owner_income: o.owner_income,
      platform_fee: o.platform_fee,
      ...overtimeData(o),
    }),
  ],
  // A closed order may never have been paid: whatever money moves is told from wallet.settled.
  'order.closed': (o) =>
    (['renter', 'owner'] as const).map((role) => orderDraft('order.closed', o, role, '订单已关闭', withReason(`「${o.listing_title}」已关闭。`, o.reason))),
  'wallet.settled': (w) => {
    const order = { order_id: w.order_id, listing_id: w.listing_id };
    const drafts: NotificationDraft[] = [];
    if (w.owner_income > 0) {
      drafts.push({
        user_id: w.owner_id,
        kind: 'wallet.settled',
        title: '收入已到账',
        body: `「${w.listing_title}」的收入 ${yuan(w.owner_income)} 已到账（${withOvertime('平台服务费 ' + yuan(w.platform_fee), w)}）。`,
        data: { ...order, role: 'owner', owner_income: w.owner_income, platform_fee: w.platform_fee, ...(w.overtime_fee ? { overtime_fee: w.overtime_fee } : {}) },
        biz_type: 'order',
        biz_id: w.order_id,
      });
    }
    if (w.refund > 0) {
      drafts.push({
        user_id: w.renter_id,
        kind: 'wallet.settled',
        title: '退款已到账',
        body: `「${w.listing_title}」退还您的 ${yuan(w.refund)} 已到账${w.overtime_fee ? `（已扣超时费 ${yuan(w.overtime_fee)}）` : ''}。`,
        data: { ...order, role: 'renter', refund: w.refund, ...(w.overtime_fee ? { overtime_fee: w.overtime_fee } : {}) },
        biz_type: 'order',
        biz_id: w.order_id,
      });
    }
    return drafts;
  },
  'ops.alert': (a) => [
    {
      user_id: BACK_OFFICE,
      kind: 'ops.alert',
      title: `[${a.severity}] ${a.alert} · ${a.service}`,
      body: a.summary,
      data: { alert: a.alert, severity: a.severity, service: a.service, subject_type: a.subject_type, subject_id: a.subject_id, ...scalarDetail(a.detail) },
      biz_type: 'ops',
      biz_id: a.subject_id ?? a.alert,
    },
  ],
  'order.cancelled': (o) =>
    otherParties(o).map((role) => orderDraft('order.cancelled', o, role, '订单已取消', withReason(`「${o.listing_title}」的订单已取消。`, o.reason))),
  'order.marked_abnormal': (o) =>
    (['renter', 'owner'] as const).map((role) =>
      orderDraft('order.marked_abnormal', o, role, '订单已标记异常', withReason(`「${o.listing_title}」被标记为异常，款项暂时冻结，等待平台处理。`, o.reason)),
    ),
  'dispute.opened': (d) =>
    (['renter', 'owner'] as const).map((role) => {
      const userId = role === 'renter' ? d.renter_id : d.owner_id;
      const raisedByMe = userId === d.raised_by;
      return {
        user_id: userId,
        kind: 'dispute.opened',
        title: raisedByMe ? '纠纷已提交' : '对方发起了纠纷',
        body: raisedByMe ? `您发起的纠纷已提交，平台将介入处理。` : `对方就订单发起了纠纷：${d.reason}。平台将介入处理。`,
        data: { order_id: d.order_id, dispute_id: d.dispute_id, role, type: d.type },
        biz_type: 'order',
        biz_id: d.order_id,
      };
    }),
  'dispute.resolved': (d) =>
    (['renter', 'owner'] as const).map((role) => ({
      user_id: role === 'renter' ? d.renter_id : d.owner_id,
      kind: 'dispute.resolved',
      title: '纠纷已处理',
      body: `${ARBITRATION_TEXT[d.result]}${d.note ? `说明：${d.note}` : ''}`,
      data: { order_id: d.order_id, dispute_id: d.dispute_id, role, result: d.result },
      biz_type: 'order',
      biz_id: d.order_id,
    })),
  'listing.approved': (l) => listingDraft('listing.approved', l, '房源已通过审核', `「${l.title}」已通过审核并上架。`),
  'listing.rejected': (l) => listingDraft('listing.rejected', l, '房源未通过审核', withReason(`「${l.title}」未通过审核。`, l.reason)),
  'listing.offlined': (l) => listingDraft('listing.offlined', l, '房源已下架', withReason(`「${l.title}」已被下架。`, l.reason)),
  // ADR 0066: the renter had the password; the listing waits until the owner changes it
  'listing.rotation_required': (l) => [
    {
      ...listingDraft('listing.rotation_required', l, '请修改账号密码', `「${l.title}」的租期已结束。请先修改账号密码，再确认已修改或更新托管的账号信息，房源才能再次出租。`)[0]!,
      data: { listing_id: l.listing_id, order_id: l.order_id },
    },
  ],
  'payment.succeeded': (p) =>
    // An order paid from the balance is told by order.paid; only a recharge is news to the payer.
    p.purpose !== 'recharge'
      ? []
      : [
          {
            user_id: p.user_id,
            kind: 'payment.succeeded',
            title: '充值成功',
            body: `您已成功充值 ${yuan(p.amount)}。`,
            data: { payment_id: p.payment_id, amount: p.amount },
            biz_type: 'payment',
            biz_id: p.payment_id,
          },
        ],
  'payment.failed': (p) => [
    {
      user_id: p.user_id,
      kind: 'payment.failed',
      title: '充值失败',
      body: `充值 ${yuan(p.amount)} 未成功，款项未入账。`,
      data: { payment_id: p.payment_id, amount: p.amount },
      biz_type: 'payment',
      biz_id: p.payment_id,
    },
  ],
  'withdrawal.rejected': (w) => [
    withdrawalDraft('withdrawal.rejected', w, '提现未通过审核', withReason(`提现 ${yuan(w.amount)} 未通过审核，款项已退回余额。`, w.reason)),
  ],
  'withdrawal.paid': (w) => [
    withdrawalDraft(
      'withdrawal.paid',
      w,
      '提现已到账',
      `提现 ${yuan(w.amount)} 已转入您的${w.channel === 'wechatpay' ? '微信零钱' : `支付宝账户 ${w.payee_account_masked}`}。`,
    ),
  ],
  'withdrawal.failed': (w) => [
    withdrawalDraft('withdrawal.failed', w, '提现失败', withReason(`提现 ${yuan(w.amount)} 转账失败，款项已退回余额。`, w.reason)),
  ],
  'withdrawal.reversed': (w) => [
    withdrawalDraft('withdrawal.reversed', w, '提现被退回', withReason(`提现 ${yuan(w.amount)} 到账后被退回，款项已回到余额。`, w.reason)),
  ],
  'refund.rejected': (r) => [refundDraft('refund.rejected', r, '退款申请未通过', withReason(`退款 ${yuan(r.amount)} 的申请未通过审核，余额未变动。`, r.reason))],
  'refund.refunded': (r) => [refundDraft('refund.refunded', r, '退款已原路退回', `${yuan(r.amount)} 已退回您充值时使用的支付方式。`)],
  'refund.failed': (r) => [refundDraft('refund.failed', r, '退款失败', withReason(`退款 ${yuan(r.amount)} 未能完成，款项已退回余额。`, r.reason))],
  'user.frozen': (u) => [
    {
      user_id: u.user_id,
      kind: 'user.frozen',
      title: '账号已被冻结',
      body: withReason('您的账号已被冻结，如有疑问请联系客服。', u.reason),
      data: { user_id: u.user_id },
      biz_type: 'user',
      biz_id: u.user_id,
    },
  ],
  'user.unfrozen': (u) => [
    {
      user_id: u.user_id,
      kind: 'user.unfrozen',
      title: '账号已解冻',
      body: '您的账号已恢复正常使用。',
      data: { user_id: u.user_id },
      biz_type: 'user',
      biz_id: u.user_id,
    },
  ],
};

/** The notifications an event makes; none for a type notify does not tell anyone about. */
export function notificationsFor<T extends EventType>(type: T, data: EventData<T>): NotificationDraft[] {
  const build = MESSAGES[type] as ((data: EventData<T>) => NotificationDraft[]) | undefined;
  return build ? build(data) : [];
}

/** The kinds of notification that end the user's live streams once delivered: they can no longer use the account. */
export const ENDS_STREAMS: ReadonlySet<string> = new Set<EventType>(['user.frozen']);
