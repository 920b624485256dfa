import { EmptyBody, IdParams, PageQuery, Page, Timestamp, Id } from '../common';
import { z } from '../zod';
import { AdminPermission, AdminRole, ADMIN_ROLES } from '../permissions';
import { routesOf } from './route';
import { LedgerVerification } from './wallet';
import { changeById } from './change-by-id';

const adminAuthRoute = routesOf('admin', { tags: ['admin-auth'] });
const dashboardRoute = routesOf('admin', { tags: ['admin-dashboard'] });
const configRoute = routesOf('admin', { tags: ['admin-system-configs'] });
const auditRoute = routesOf('admin', { tags: ['admin-audit'] });
const accountRoute = routesOf('admin', { tags: ['admin-accounts'] });

export const AdminStatus = z.enum(['active', 'disabled']);

/** The account rules `npm run admin:create` enforces, shared with the back-office endpoints. */
export const AdminUsername = z
  .string()
  .regex(/^[a-z0-9_.-]{3,32}$/, 'must be 3 to 32 characters from a-z, 0-9, "_", "." and "-"')
  .openapi({ description: 'unique; 3 to 32 of a-z, 0-9, `_`, `.`, `-` (lower case only)', example: 'cs_alice' });
export const AdminNickname = z.string().trim().min(1).max(32).openapi({ description: '1 to 32 characters', example: '客服小艾' });
export const AdminPassword = z
  .string()
  .min(12, 'must be at least 12 characters')
  .max(200, 'must be at most 200 characters')
  .openapi({ description: '12 to 200 characters' });

export const Admin = z
  .object({
    id: Id,
    username: z.string().openapi({ example: 'cs_alice' }),
    nickname: z.string().openapi({ example: '客服小艾' }),
    status: AdminStatus.openapi({ description: 'only `active` admins log in and match open uploads' }),
    roles: z.array(AdminRole).openapi({ description: 'what the admin may do (ADR 0033); none: only their own account' }),
    created_at: Timestamp,
  })
  .openapi('Admin');

/** Roles to grant, each at most once. */
export const AdminRoles = z
  .array(AdminRole)
  .max(ADMIN_ROLES.length)
  .refine((roles) => new Set(roles).size === roles.length, 'each role at most once');

export const CurrentAdmin = Admin.extend({
  permissions: z.array(AdminPermission).openapi({ description: 'what the roles allow, for the console to show only what the admin may use' }),
}).openapi('CurrentAdmin');

export const Captcha = z
  .object({
    captcha_id: z.string(),
    image: z.string().openapi({ description: 'SVG data URL; single use, valid 2 minutes', example: 'data:image/svg+xml;base64,PHN2Zy4uLg==' }),
    dev_text: z.string().optional().openapi({ description: 'only with CAPTCHA_MODE=dev' }),
  })
  .openapi('Captcha');

export const AdminLogin = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().openapi({ description: 'access token lifetime in seconds', example: 3600 }),
    admin: Admin,
  })
  .openapi('AdminLogin');

/** The required figures are what the admin service holds itself or gets from identity and catalog; the rest appear as the services that own them answer. */
/** The services whose figures the dashboard shows; one that does not answer in time is listed in `unavailable`. */
export const DashboardSource = z.enum(['identity', 'catalog', 'orders', 'wallet']);

const Count = z.number().int().min(0);
const Fen = z.number().int().min(0);
const missingWhenUnavailable = (source: z.infer<typeof DashboardSource>, text: string) =>
  `${text}; null when ${source} did not answer (then "${source}" is in \`unavailable\`)`;

export const DashboardDay = z
  .object({
    date: z.iso.date().openapi({ description: 'the UTC day', example: '2026-11-25' }),
    new_users: Count.nullable().openapi({ description: missingWhenUnavailable('identity', 'ordinary users registered that day') }),
    orders: Count.nullable().openapi({ description: missingWhenUnavailable('orders', 'orders created that day') }),
    gmv: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'fen paid into order escrow that day') }),
    recharges_amount: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'fen credited by recharges that day') }),
    platform_fees: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'platform fees taken at settlement that day, in fen') }),
  })
  .openapi('DashboardDay');

export const Dashboard = z
  .object({
    users_total: Count.nullable().openapi({ description: missingWhenUnavailable('identity', 'ordinary (phone) users') }),
    users_today: Count.nullable().openapi({ description: missingWhenUnavailable('identity', 'users registered today') }),
    users_frozen: Count.nullable().openapi({ description: missingWhenUnavailable('identity', 'frozen users') }),
    admins_total: Count.openapi({ description: 'back-office accounts (the admin service itself, always present)' }),
    listings_by_status: z
      .record(z.string(), Count)
      .nullable()
      .openapi({ description: missingWhenUnavailable('catalog', 'every listing status with its count'), example: { draft: 3, online: 12, offline: 1 } }),
    listings_pending_review: Count.nullable().openapi({ description: missingWhenUnavailable('catalog', 'listings awaiting review') }),
    orders_by_status: z
      .record(z.string(), Count)
      .nullable()
      .openapi({ description: missingWhenUnavailable('orders', 'every order status with its count'), example: { pending_payment: 2, in_use: 5, completed: 40 } }),
    orders_today: Count.nullable().openapi({ description: missingWhenUnavailable('orders', 'orders created today') }),
    disputes_open: Count.nullable().openapi({ description: missingWhenUnavailable('orders', 'disputes not yet resolved') }),
    gmv_today: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'fen paid into order escrow today (rent + deposit of the orders paid today)') }),
    gmv_last_7_days: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'fen paid into order escrow today and on the six days before') }),
    platform_revenue_today: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'platform fees taken at settlement today, in fen') }),
    platform_revenue_last_7_days: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'platform fees taken today and on the six days before, in fen') }),
    recharges_today_count: Count.nullable().openapi({ description: missingWhenUnavailable('wallet', 'recharges credited today') }),
    recharges_today_amount: Fen.nullable().openapi({ description: missingWhenUnavailable('wallet', 'fen credited by recharges today') }),
    last_30_days: z.array(DashboardDay).openapi({
      description: 'one entry per UTC day, oldest first, ending with today (30 entries); a day without activity holds zeros',
    }),
    unavailable: z.array(DashboardSource).openapi({
      description: 'services that did not answer within the bound (1 s) or answered an error; their figures are null, never zero',
      example: [],
    }),
  })
  .openapi('Dashboard', {
    description:
      'Figures as they are now, each from the service that owns it. "Today" is the UTC day (since 00:00 UTC); "last 7 days" is today and the six UTC days before it.',
  });

export const SystemConfigValue = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .openapi({ description: 'checked against the schema of its key', example: 15 });

export const SystemConfig = z
  .object({
    key: z.string().openapi({ example: 'order.payment_timeout_minutes' }),
    value: SystemConfigValue,
    description: z.string(),
    updated_at: Timestamp.nullable(),
    updated_by: z.string().nullable().openapi({ description: 'admin id; null while the default applies' }),
  })
  .openapi('SystemConfig');

export const AuditActorType = z.enum(['admin', 'user', 'system']);
export const AuditResult = z.enum(['success', 'failure']);

/** What an audit entry records: every service publishes it (`audit.recorded`), the back office reads it (`AuditLog`). */
export const AuditEntryFields = {
  actor_type: AuditActorType,
  actor_id: z.string().nullable().openapi({ description: 'null for the system' }),
  action: z.string().openapi({ example: 'listing.approve' }),
  biz_type: z.string().openapi({ example: 'listing' }),
  biz_id: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  result: AuditResult,
  request_id: z.string().nullable(),
};

export const AuditLog = z.object({ id: Id, ...AuditEntryFields, created_at: Timestamp }).openapi('AuditLog');

export const getAdminCaptcha = adminAuthRoute('get /api/admin/auth/captcha', { id: 'getAdminCaptcha', auth: 'public', token: 'ignored',
  summary: 'Obtain a back-office login captcha',
  success: { status: 200, description: 'a fresh captcha', schema: Captcha }, errors: [429],
});

export const adminLogin = adminAuthRoute('post /api/admin/auth/login', { id: 'adminLogin', auth: 'public', token: 'ignored',
  summary: 'Back-office login with username, password and captcha',
  description:
    'The captcha is checked first and spent whatever the outcome (`422 CAPTCHA_INVALID`). A wrong password and an unknown ' +
    'username both answer `401` "invalid username or password". Failed attempts are counted per username and client address, ' +
    'whether an admin has it or not: after `ADMIN_LOGIN_MAX_FAILURES` in a row (default 5) that address is held off ' +
    'that username for `ADMIN_LOCKOUT_MINUTES` (default 15), twice as long at each further hold (up to a day), answering `429` ' +
    'with `Retry-After` even to the right password, while the admin still logs in from elsewhere. The account itself is locked ' +
    '(for `ADMIN_LOCKOUT_MINUTES`, with an alert) only after `ADMIN_ACCOUNT_LOCK_FAILURES` (default 100) failures in a row over ' +
    'every address. A success resets its address’s count and the account’s; a count with no attempt for a day is forgotten. ' +
    'A disabled admin giving the right password gets `403`.',
  edge: { rate: 'admin_login' },
  body: z
    .object({
      username: z.string().trim().min(1).max(64),
      password: z.string().min(1).max(200),
      captcha_id: z.string().min(1).max(100),
      captcha_code: z.string().trim().min(1).max(16),
    })
    .strict(),
  success: { status: 200, description: 'logged in', schema: AdminLogin }, errors: [400, 401, 403, 422, 429],
});

export const adminLogout = adminAuthRoute('post /api/admin/auth/logout', { id: 'adminLogout', auth: 'admin', permission: 'own_account',
  summary: 'Back-office logout; the admin token stops working at once',
  success: { status: 204, description: 'logged out' }, errors: [401, 403],
});

export const getAdminMe = adminAuthRoute('get /api/admin/me', { id: 'getAdminMe', auth: 'admin', permission: 'own_account',
  summary: 'Read the current admin, with their roles and permissions',
  success: { status: 200, description: 'the caller', schema: CurrentAdmin }, errors: [401, 403],
});

export const getDashboard = dashboardRoute('get /api/admin/dashboard', { id: 'getDashboard', auth: 'admin', permission: 'dashboard.read',
  summary: 'Back-office dashboard figures',
  success: { status: 200, description: 'current figures', schema: Dashboard }, errors: [401, 403],
});

export const listSystemConfigs = configRoute('get /api/admin/system-configs', { id: 'listSystemConfigs', auth: 'admin', permission: 'configs.read',
  summary: 'List every system configuration entry with its current value',
  success: { status: 200, description: 'all entries', schema: z.object({ items: z.array(SystemConfig) }) }, errors: [401, 403],
});

export const updateSystemConfig = configRoute('put /api/admin/system-configs/{key}', { id: 'updateSystemConfig', auth: 'admin', permission: 'configs.manage',
  summary: 'Change one configuration entry',
  description: 'The value is validated against the schema of its key (400 otherwise); an unknown key is 404.',
  params: z.object({ key: z.string().max(100) }).strict(),
  body: z.object({ value: SystemConfigValue }).strict(),
  success: { status: 200, description: 'the updated entry', schema: SystemConfig }, errors: [400, 401, 403, 404],
});

export const listAuditLogs = auditRoute('get /api/admin/audit-logs', { id: 'listAuditLogs', auth: 'admin', permission: 'audit.read',
  summary: 'Recent audit log',
  query: PageQuery.extend({
    actor_id: z.string().max(100).optional(),
    action: z.string().max(100).optional(),
    biz_type: z.string().max(50).optional(),
  }),
  success: { status: 200, description: 'entries, newest first', schema: Page(AuditLog) }, errors: [400, 401, 403],
});

export const ChainBreak = z
  .object({
    chain: z.string().openapi({ description: 'the chain: the producing service of an audit entry, the account key of a ledger entry', example: 'orders' }),
    entry: z.string().nullable().openapi({ description: 'the id of the first entry at which the chain stops holding; null when the chain’s head points past its newest entry' }),
    problem: z.enum(['altered', 'removed_or_inserted', 'head_mismatch']).openapi({
      description:
        '`altered`: the entry’s content or hash was changed; `removed_or_inserted`: the entry does not follow the one before it (one ' +
        'between was removed, or it was inserted); `head_mismatch`: the chain’s recorded head is not its newest entry (the newest removed, or one appended past it)',
    }),
  })
  .openapi('ChainBreak');

export const AuditChainVerification = z
  .object({
    checked_at: Timestamp,
    chains: z.number().int().min(0).openapi({ description: 'how many chains (producing services) were walked' }),
    entries: z.number().int().min(0).openapi({ description: 'how many entries were rehashed' }),
    head_hash: z.string().openapi({ description: 'SHA-256 over every chain’s head, in chain order: the value logged daily to anchor the log (ADR 0067)' }),
    breaks: z.array(ChainBreak).openapi({ description: 'each chain’s first break; empty when the audit log is intact' }),
  })
  .openapi('AuditChainVerification');

export const verifyAuditLogs = auditRoute('post /api/admin/audit-logs/verify', { id: 'verifyAuditLogs', auth: 'admin', permission: 'audit.read',
  summary: 'Recompute the audit log’s hash chains and name the first entry altered, removed or inserted in each',
  description:
    'Every audit entry carries the SHA-256 of its canonical content and of the previous entry of its producer’s chain (ADR 0067). ' +
    'This walks every chain from its start, as `npm run audit:verify` does, from one snapshot; it changes nothing. What it cannot see: ' +
    'someone with write access to the database who rewrites a whole chain and its head; the daily head logged (`head_hash`) anchors that.',
  success: { status: 200, description: 'the chains walked and each break found', schema: AuditChainVerification }, errors: [401, 403],
});

export const changeAdminPassword = accountRoute('post /api/admin/me/password', { id: 'changeAdminPassword', auth: 'admin', permission: 'own_account',
  summary: 'Change the caller’s own password',
  description:
    'The new password follows the admin password rule (12 to 200 characters) and must differ from the current one (400). ' +
    'A wrong `current_password` is `422 CURRENT_PASSWORD_INCORRECT` and counts as a failed login of the caller’s username, ' +
    'so it leads to the same lockout (`429` with `Retry-After`) as wrong guesses at the login. ' +
    'On success every other session of the admin ends at once (their tokens are revoked): a password is changed when it ' +
    'may have leaked, and tokens obtained with the old one must not outlive it. The token making the call keeps working. ' +
    '`409` when the password was changed by another request meanwhile.',
  body: z.object({ current_password: z.string().min(1).max(200), new_password: AdminPassword }).strict(),
  success: { status: 200, description: 'the caller; the password is changed', schema: Admin }, errors: [400, 401, 403, 409, 422, 429],
});

export const listAdmins = accountRoute('get /api/admin/admins', { id: 'listAdmins', auth: 'admin', permission: 'admins.read',
  summary: 'List back-office admins',
  query: PageQuery.extend({ status: AdminStatus.optional() }),
  success: { status: 200, description: 'admins, newest first', schema: Page(Admin) }, errors: [400, 401, 403],
});

export const createAdmin = accountRoute('post /api/admin/admins', { id: 'createAdmin', auth: 'admin', permission: 'admins.manage',
  summary: 'Add a back-office admin',
  description:
    'Same rules as `npm run admin:create`: username 3 to 32 of a-z, 0-9, `_`, `.`, `-`; nickname 1 to 32 characters; ' +
    'initial password 12 to 200 characters (400 otherwise). A username already taken, by an active or a disabled admin, is ' +
    '`409 CONFLICT`. The new admin is active at once and should change the initial password with `POST /api/admin/me/password`. ' +
    'It holds the `roles` given (none when left out: it can only read and change its own account).',
  body: z.object({ username: AdminUsername, nickname: AdminNickname, password: AdminPassword, roles: AdminRoles.optional() }).strict(),
  success: { status: 201, description: 'the new admin', schema: Admin }, errors: [400, 401, 403, 409],
});

export const disableAdmin = accountRoute('post /api/admin/admins/{id}/disable', { id: 'disableAdmin', auth: 'admin', permission: 'admins.manage',
  summary: 'Disable an admin: every token it holds stops working at once',
  description:
    'A disabled admin cannot log in (`403`), its sessions end and its tokens are refused on the next request (`403`), and it no ' +
    'longer matches open uploads. Nobody can disable their own account (`403 FORBIDDEN`) or the last active admin ' +
    '(`409 LAST_ACTIVE_ADMIN`) or the last active super admin (`409 LAST_SUPER_ADMIN`); disabling a disabled admin is `409 INVALID_STATE`. Disables are serialised, so of two admins ' +
    'disabling each other at once exactly one succeeds and the other gets `409 LAST_ACTIVE_ADMIN` (or `403` when others remain ' +
    'active: it has just been disabled itself).',
  ...changeById(EmptyBody, { description: 'the disabled admin', schema: Admin }),
});

export const enableAdmin = accountRoute('post /api/admin/admins/{id}/enable', { id: 'enableAdmin', auth: 'admin', permission: 'admins.manage',
  summary: 'Enable a disabled admin again',
  description:
    'The admin can log in again with its password; tokens it held when it was disabled stay revoked. Enabling an active admin is `409 INVALID_STATE`.',
  ...changeById(EmptyBody, { description: 'the enabled admin', schema: Admin }),
});

export const setAdminRoles = accountRoute('put /api/admin/admins/{id}/roles', { id: 'setAdminRoles', auth: 'admin', permission: 'admins.manage',
  summary: 'Replace an admin’s roles; they take effect on the admin’s next request',
  description:
    'The roles replace the old ones (an empty list leaves only the admin’s own account). Audited with the roles before and after. ' +
    'Nobody changes their own roles (`403 FORBIDDEN`), and the last active super admin keeps that role (`409 LAST_SUPER_ADMIN`).',
  ...changeById(z.object({ roles: AdminRoles }).strict(), { description: 'the admin with its new roles', schema: Admin }),
});

export const resetAdminPassword = accountRoute('post /api/admin/admins/{id}/password', { id: 'resetAdminPassword', auth: 'admin', permission: 'admins.manage',
  summary: 'Set another admin’s password (a forgotten or leaked one); every session of that admin ends',
  description:
    'The new password follows the admin password rule of creation (12 to 200 characters, 400 otherwise). Every session the ' +
    'admin holds ends at once (its tokens are refused on the next request and its live streams end): whoever knew the old ' +
    'password must not keep what they obtained with it. A disabled admin’s password can be reset too (it stays disabled). ' +
    'Nobody resets their own password this way (`403 FORBIDDEN`): `POST /api/admin/me/password` asks for the current one, ' +
    'so a stolen token cannot take the account over. Audited as `admin_user.reset_password` (never with the password).',
  params: IdParams,
  body: z.object({ password: AdminPassword }).strict(),
  success: { status: 204, description: 'the password is changed and the admin’s sessions ended' }, errors: [400, 401, 403, 404],
});

export const MoneyMismatch = z
  .object({
    check: z.string().openapi({ description: 'the rule that does not hold', example: 'a paid order has exactly one charge of its amount' }),
    id: z.string().openapi({ description: 'the order (or, for a recharge, the payment) it concerns' }),
    fen: z.number().int().openapi({ description: 'how many fen are off' }),
    detail: z.string(),
  })
  .openapi('MoneyMismatch');

export const MoneyCheck = z
  .object({
    checked_at: Timestamp.openapi({ description: 'when the check read the services (the answer may be up to a minute old: see GET)' }),
    mismatches: z.array(MoneyMismatch).openapi({ description: 'empty when orders and wallet agree' }),
    ledger: LedgerVerification.openapi({ description: 'the wallet’s double-entry checks, as `npm run wallet:verify` prints them' }),
  })
  .openapi('MoneyCheck');

const MONEY_CHECK_RULES =
  'The check the periodic job and `npm run money:verify` run: across orders and the wallet (every paid order charged once, every ended ' +
  'order’s escrow paid out as its checkout or arbitration says, no escrow held past the settlement deadline, recharges agreeing with ' +
  'their payments), read through the services’ internal APIs, and the wallet’s own ledger (`ledger`: everything sums to zero, each ' +
  'balance is its entries, escrow and revenue accounts, every kind of hold account, and every account’s hash chain of entries, whose ' +
  'break names the account and the first entry altered, removed or inserted: ADR 0067), the same checks `npm run wallet:verify` prints. ';

export const getMoneyCheck = dashboardRoute('get /api/admin/money-check', { id: 'getMoneyCheck', auth: 'admin', permission: 'ledger.read',
  summary: 'The latest money check: every disagreement between the orders and the wallet, and in the wallet’s ledger',
  description:
    MONEY_CHECK_RULES +
    'Answers the latest result (of the periodic job, an earlier GET or a POST) while it is under a minute old (`checked_at` says when ' +
    'it was read), and runs the check again only when it is older, so reloading a page never costs a full reconciliation; ask for a ' +
    'fresh run with POST. Writes no audit entry (the periodic job raises `money.mismatch`). 502/503 when a check is due and orders or ' +
    'the wallet cannot answer.',
  success: { status: 200, description: 'the mismatches found, if any', schema: MoneyCheck }, errors: [401, 403, 502, 503],
});

export const runMoneyCheck = dashboardRoute('post /api/admin/money-check', { id: 'runMoneyCheck', auth: 'admin', permission: 'ledger.read',
  summary: 'Run the money check now, whatever the age of the latest result',
  description:
    MONEY_CHECK_RULES +
    'Runs at once and answers the fresh result, which GET answers from then on. Same permission as GET. 502/503 when orders or the ' +
    'wallet cannot answer.',
  success: { status: 200, description: 'the mismatches found now, if any', schema: MoneyCheck }, errors: [401, 403, 502, 503],
});

export const adminRoutes = [
  getAdminCaptcha,
  adminLogin,
  adminLogout,
  getAdminMe,
  changeAdminPassword,
  listAdmins,
  createAdmin,
  disableAdmin,
  enableAdmin,
  setAdminRoles,
  resetAdminPassword,
  getDashboard,
  listSystemConfigs,
  updateSystemConfig,
  listAuditLogs,
  verifyAuditLogs,
  getMoneyCheck,
  runMoneyCheck,
];
