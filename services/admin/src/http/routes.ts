import {
  adminLogin,
  changeAdminPassword,
  createAdmin as createAdminRoute,
  disableAdmin as disableAdminRoute,
  enableAdmin as enableAdminRoute,
  listAdmins as listAdminsRoute,
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
import { changeOwnPassword } from '../application/change-own-password';
import { createAdmin } from '../application/create-admin';
import { disableAdmin } from '../application/disable-admin';
import { enableAdmin } from '../application/enable-admin';
import { listAdmins } from '../application/list-admins';
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
    route(changeAdminPassword, ({ identity, body }) => changeOwnPassword(app, identity, body)),
    route(listAdminsRoute, ({ query }) => listAdmins(app, query)),
    route(createAdminRoute, ({ identity, body }) => createAdmin(app, body, identity)),
    route(disableAdminRoute, ({ identity, params }) => disableAdmin(app, identity, params.id)),
    route(enableAdminRoute, ({ identity, params }) => enableAdmin(app, identity, params.id)),
    route(getDashboardRoute, () => getDashboard(app)),
    route(listSystemConfigsRoute, () => listSystemConfigs(app)),
    route(updateSystemConfigRoute, ({ identity, params, body }) => updateSystemConfig(app, identity, params.key, body.value)),
    route(listAuditLogsRoute, ({ query }) => listAuditLogs(app, query)),
  ];
}
