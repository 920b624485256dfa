import type { I18nProvider } from '@refinedev/core';

export type Locale = 'zh-CN' | 'en';

/** Every text of the console, Chinese first (the back office's language) and English. */
const TEXTS = {
  'app.title': ['运营后台', 'Back office'],
  'app.language': ['English', '中文'],
  'app.switchLanguage': ['切换语言', 'Switch language'],
  'login.title': ['登录运营后台', 'Sign in to the back office'],
  'login.username': ['用户名', 'Username'],
  'login.password': ['密码', 'Password'],
  'login.captcha': ['验证码', 'Captcha'],
  'login.captchaImage': ['验证码图片，点击刷新', 'Captcha image, click to refresh'],
  'login.submit': ['登录', 'Sign in'],
  'login.expired': ['会话已结束，请重新登录', 'Your session ended; please sign in again'],
  'logout': ['退出登录', 'Sign out'],
  'menu.dashboard': ['概览', 'Dashboard'],
  'menu.listings': ['商品审核', 'Listing review'],
  'menu.users': ['用户', 'Users'],
  'menu.orders': ['订单', 'Orders'],
  'menu.disputes': ['纠纷', 'Disputes'],
  'menu.money': ['资金', 'Money'],
  'menu.configs': ['系统配置', 'System configs'],
  'menu.audit': ['审计日志', 'Audit log'],
  'menu.admins': ['管理员', 'Admins'],
  'menu.uploads': ['开放上传记录', 'Open uploads'],
  'common.loading': ['加载中', 'Loading'],
  'common.empty': ['暂无数据', 'Nothing here'],
  'common.next': ['下一页', 'Next page'],
  'common.first': ['第一页', 'First page'],
  'common.search': ['查询', 'Search'],
  'common.reset': ['重置', 'Reset'],
  'common.detail': ['详情', 'Details'],
  'common.back': ['返回', 'Back'],
  'common.reason': ['原因', 'Reason'],
  'common.confirm': ['确定', 'Confirm'],
  'common.cancel': ['取消', 'Cancel'],
  'common.status': ['状态', 'Status'],
  'common.created': ['创建时间', 'Created'],
  'common.retry': ['重试', 'Retry'],
  'common.all': ['全部', 'All'],
  'common.save': ['保存', 'Save'],
  'common.done': ['操作成功', 'Done'],
  'dashboard.users': ['用户', 'Users'],
  'dashboard.usersToday': ['今日新增用户', 'New users today'],
  'dashboard.frozen': ['冻结用户', 'Frozen users'],
  'dashboard.ordersToday': ['今日订单', 'Orders today'],
  'dashboard.gmvToday': ['今日 GMV', 'GMV today'],
  'dashboard.gmv7': ['近 7 日 GMV', 'GMV, last 7 days'],
  'dashboard.feesToday': ['今日平台收入', 'Fees today'],
  'dashboard.fees7': ['近 7 日平台收入', 'Fees, last 7 days'],
  'dashboard.rechargesToday': ['今日充值', 'Recharges today'],
  'dashboard.pending': ['待审核商品', 'Listings awaiting review'],
  'dashboard.disputes': ['未结纠纷', 'Open disputes'],
  'dashboard.ordersByStatus': ['订单状态分布', 'Orders by status'],
  'dashboard.listingsByStatus': ['商品状态分布', 'Listings by status'],
  'dashboard.unavailable': ['以下服务暂不可用，其数据未显示：', 'These services did not answer; their figures are missing: '],
  'listing.title': ['标题', 'Title'],
  'listing.game': ['游戏', 'Game'],
  'listing.price': ['时租', 'Hourly price'],
  'listing.deposit': ['押金', 'Deposit'],
  'listing.hours': ['租期（小时）', 'Hours'],
  'listing.owner': ['号主', 'Owner'],
  'listing.review': ['审核状态', 'Review'],
  'listing.approve': ['通过', 'Approve'],
  'listing.reject': ['驳回', 'Reject'],
  'listing.rejectReason': ['驳回原因', 'Rejection reason'],
  'listing.images': ['截图', 'Screenshots'],
  'listing.description': ['描述', 'Description'],
  'listing.pendingOnly': ['仅待审核', 'Pending only'],
  'user.phone': ['手机号', 'Phone'],
  'user.nickname': ['昵称', 'Nickname'],
  'user.realname': ['实名状态', 'Real name'],
  'user.frozen': ['已冻结', 'Frozen'],
  'user.active': ['正常', 'Active'],
  'user.freeze': ['冻结', 'Freeze'],
  'user.unfreeze': ['解冻', 'Unfreeze'],
  'user.freezeReason': ['冻结原因', 'Freeze reason'],
  'user.orders': ['TA 的订单', 'Their orders'],
  'user.ledger': ['TA 的流水', 'Their ledger'],
  'order.renter': ['租客', 'Renter'],
  'order.amount': ['金额', 'Amount'],
  'order.rent': ['租金', 'Rent'],
  'order.from': ['创建起', 'Created from'],
  'order.to': ['创建止', 'Created to'],
  'order.timeline': ['状态时间线', 'Timeline'],
  'order.handoff': ['交接记录', 'Handoff records'],
  'order.reveal': ['查看交接内容（将记入审计）', 'Reveal handoff content (audited)'],
  'order.revealReason': ['查看原因', 'Reason for revealing'],
  'order.withheld': ['内容已隐藏', 'Content withheld'],
  'order.author': ['提交方', 'Written by'],
  'order.close': ['关闭订单', 'Close order'],
  'order.abnormal': ['标记异常', 'Mark abnormal'],
  'order.escrow': ['托管', 'Escrow'],
  'dispute.type': ['类型', 'Type'],
  'dispute.reason': ['申诉理由', 'Claim'],
  'dispute.evidence': ['证据', 'Evidence'],
  'dispute.arbitrate': ['仲裁', 'Arbitrate'],
  'dispute.result': ['裁决', 'Ruling'],
  'dispute.note': ['裁决说明', 'Ruling note'],
  'dispute.age': ['已等待', 'Waiting'],
  'breakdown.consumption': ['消费金额（分）', 'Consumption (fen)'],
  'breakdown.deduction': ['押金扣除（分）', 'Deposit deduction (fen)'],
  'breakdown.ownerIncome': ['号主收入', 'Owner income'],
  'breakdown.fee': ['平台服务费', 'Platform fee'],
  'breakdown.refund': ['退还租客', 'Refund to renter'],
  'breakdown.use': ['指定结算金额', 'Set a breakdown'],
  'money.biz': ['业务类型', 'Business type'],
  'money.user': ['用户 ID', 'User id'],
  'money.order': ['订单 ID', 'Order id'],
  'money.balanceAfter': ['变动后余额', 'Balance after'],
  'config.key': ['配置项', 'Key'],
  'config.value': ['值', 'Value'],
  'config.description': ['说明', 'Description'],
  'config.updated': ['更新于', 'Updated'],
  'config.edit': ['编辑', 'Edit'],
  'config.invalidJson': ['不是合法的 JSON', 'Not valid JSON'],
  'audit.actor': ['操作人', 'Actor'],
  'audit.action': ['动作', 'Action'],
  'audit.target': ['对象', 'Target'],
  'audit.result': ['结果', 'Result'],
  'admin.username': ['用户名', 'Username'],
  'admin.nickname': ['昵称', 'Nickname'],
  'admin.password': ['初始密码', 'Initial password'],
  'admin.create': ['新建管理员', 'New admin'],
  'admin.disable': ['停用', 'Disable'],
  'admin.enable': ['启用', 'Enable'],
  'upload.uploader': ['上传方', 'Uploader'],
  'upload.outcome': ['结果', 'Outcome'],
  'upload.received': ['接收时间', 'Received'],
  'upload.raw': ['原始请求', 'Raw request'],
  'upload.items': ['逐条结果', 'Per item'],
} satisfies Record<string, [string, string]>;

export type TextKey = keyof typeof TEXTS;

const STORAGE = 'market.console.locale';

export function currentLocale(): Locale {
  return localStorage.getItem(STORAGE) === 'en' ? 'en' : 'zh-CN';
}

export function translate(key: string, locale: Locale = currentLocale()): string {
  const pair = (TEXTS as Record<string, [string, string]>)[key];
  return pair ? pair[locale === 'en' ? 1 : 0] : key;
}

export const i18nProvider: I18nProvider = {
  translate: (key: string, _options?: unknown, defaultMessage?: string) => {
    const text = translate(key);
    return text === key && defaultMessage ? defaultMessage : text;
  },
  changeLocale: async (locale: string) => {
    localStorage.setItem(STORAGE, locale);
    location.reload();
  },
  getLocale: () => currentLocale(),
};

/** The console's text in the chosen language: `t('menu.users')`. */
export const t = (key: TextKey) => translate(key);
