import {
  adminLogin,
  adminLogout,
  getAdminCaptcha,
  getAdminMe,
  getDashboard as getDashboardRoute,
  listAuditLogs as listAuditLogsRoute,
  listSystemConfigs as listSystemConfigsRoute,
  route,
  updateSystemConfig as updateSystemConfigRoute,
  type RouteBinding,
} from '@market/shared';
import type { AdminApp } from '../application/admin-app';
import { getCurrentAdmin } from '../application/get-current-admin';
import { getDashboard } from '../application/get-dashboard';
import { issueCaptcha } from '../application/issue-captcha';
import { listAuditLogs } from '../application/list-audit-logs';
import { listSystemConfigs } from '../application/list-system-configs';
import { logInAdmin } from '../application/log-in-admin';
import { logOutAdmin } from '../application/log-out-admin';
import { updateSystemConfig } from '../application/update-system-config';

export function adminRoutes(app: AdminApp): RouteBinding[] {
  return [
    route(getAdminCaptcha, () => issueCaptcha(app)),
    route(adminLogin, ({ body, identity }) => logInAdmin(app, body, identity.ip)),
    route(adminLogout, ({ identity }) => logOutAdmin(app, identity)),
    route(getAdminMe, ({ identity }) => getCurrentAdmin(app, identity)),
    route(getDashboardRoute, () => getDashboard(app)),
    route(listSystemConfigsRoute, () => listSystemConfigs(app)),
    route(updateSystemConfigRoute, ({ identity, params, body }) => updateSystemConfig(app, identity, params.key, body.value)),
    route(listAuditLogsRoute, ({ query }) => listAuditLogs(app, query)),
  ];
}
