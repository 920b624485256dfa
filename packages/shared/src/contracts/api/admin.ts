import { PageQuery, Page, Timestamp, Id } from '../common';
import { z } from '../zod';
import { defineRoute } from './route';

export const AdminStatus = z.enum(['active', 'disabled']);

export const Admin = z
  .object({
    id: Id,
    username: z.string().openapi({ example: 'cs_alice' }),
    nickname: z.string().openapi({ example: '客服小艾' }),
    status: AdminStatus.openapi({ description: 'only `active` admins log in and match open uploads' }),
    created_at: Timestamp,
  })
  .openapi('Admin');

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
export const Dashboard = z
  .object({
    users_total: z.number().int(),
    users_today: z.number().int(),
    users_frozen: z.number().int(),
    admins_total: z.number().int(),
    listings_by_status: z.record(z.string(), z.number().int()).openapi({ example: { draft: 3, online: 12, offline: 1 } }),
    listings_pending_review: z.number().int(),
    orders_by_status: z.record(z.string(), z.number().int()).optional(),
    orders_today: z.number().int().optional(),
    disputes_open: z.number().int().optional(),
    gmv_today: z.number().int().optional().openapi({ description: 'amount paid for orders today, in fen' }),
  })
  .openapi('Dashboard');

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

export const AuditLog = z
  .object({
    id: Id,
    actor_type: AuditActorType,
    actor_id: z.string().nullable().openapi({ description: 'null for the system' }),
    action: z.string().openapi({ example: 'listing.approve' }),
    biz_type: z.string().openapi({ example: 'listing' }),
    biz_id: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    ip: z.string().nullable(),
    result: AuditResult,
    request_id: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('AuditLog');

export const getAdminCaptcha = defineRoute({
  id: 'getAdminCaptcha',
  service: 'admin',
  method: 'get',
  path: '/api/admin/auth/captcha',
  auth: 'public',
  token: 'ignored',
  summary: 'Obtain a back-office login captcha',
  tags: ['admin-auth'],
  success: { status: 200, description: 'a fresh captcha', schema: Captcha },
  errors: [429],
});

export const adminLogin = defineRoute({
  id: 'adminLogin',
  service: 'admin',
  method: 'post',
  path: '/api/admin/auth/login',
  auth: 'public',
  token: 'ignored',
  summary: 'Back-office login with username, password and captcha',
  tags: ['admin-auth'],
  body: z
    .object({
      username: z.string().trim().min(1).max(64),
      password: z.string().min(1).max(200),
      captcha_id: z.string().min(1).max(100),
      captcha_code: z.string().trim().min(1).max(16),
    })
    .strict(),
  success: { status: 200, description: 'logged in', schema: AdminLogin },
  errors: [400, 401, 403, 422, 429],
});

export const adminLogout = defineRoute({
  id: 'adminLogout',
  service: 'admin',
  method: 'post',
  path: '/api/admin/auth/logout',
  auth: 'admin',
  summary: 'Back-office logout; the admin token stops working at once',
  tags: ['admin-auth'],
  success: { status: 204, description: 'logged out' },
  errors: [401, 403],
});

export const getAdminMe = defineRoute({
  id: 'getAdminMe',
  service: 'admin',
  method: 'get',
  path: '/api/admin/me',
  auth: 'admin',
  summary: 'Read the current admin',
  tags: ['admin-auth'],
  success: { status: 200, description: 'the caller', schema: Admin },
  errors: [401, 403],
});

export const getDashboard = defineRoute({
  id: 'getDashboard',
  service: 'admin',
  method: 'get',
  path: '/api/admin/dashboard',
  auth: 'admin',
  summary: 'Back-office dashboard figures',
  tags: ['admin-dashboard'],
  success: { status: 200, description: 'current figures', schema: Dashboard },
  errors: [401, 403],
});

export const listSystemConfigs = defineRoute({
  id: 'listSystemConfigs',
  service: 'admin',
  method: 'get',
  path: '/api/admin/system-configs',
  auth: 'admin',
  summary: 'List every system configuration entry with its current value',
  tags: ['admin-system-configs'],
  success: { status: 200, description: 'all entries', schema: z.object({ items: z.array(SystemConfig) }) },
  errors: [401, 403],
});

export const updateSystemConfig = defineRoute({
  id: 'updateSystemConfig',
  service: 'admin',
  method: 'put',
  path: '/api/admin/system-configs/{key}',
  auth: 'admin',
  summary: 'Change one configuration entry',
  description: 'The value is validated against the schema of its key (400 otherwise); an unknown key is 404.',
  tags: ['admin-system-configs'],
  params: z.object({ key: z.string().max(100) }).strict(),
  body: z.object({ value: SystemConfigValue }).strict(),
  success: { status: 200, description: 'the updated entry', schema: SystemConfig },
  errors: [400, 401, 403, 404],
});

export const listAuditLogs = defineRoute({
  id: 'listAuditLogs',
  service: 'admin',
  method: 'get',
  path: '/api/admin/audit-logs',
  auth: 'admin',
  summary: 'Recent audit log',
  tags: ['admin-audit'],
  query: PageQuery.extend({
    actor_id: z.string().max(100).optional(),
    action: z.string().max(100).optional(),
    biz_type: z.string().max(50).optional(),
  }),
  success: { status: 200, description: 'entries, newest first', schema: Page(AuditLog) },
  errors: [400, 401, 403],
});

export const adminRoutes = [
  getAdminCaptcha,
  adminLogin,
  adminLogout,
  getAdminMe,
  getDashboard,
  listSystemConfigs,
  updateSystemConfig,
  listAuditLogs,
];
