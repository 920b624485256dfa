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
  getMoneyCheck,
  runMoneyCheck as runMoneyCheckRoute,
  listAuditLogs as listAuditLogsRoute,
  verifyAuditLogs as verifyAuditLogsRoute,
  listSystemConfigs as listSystemConfigsRoute,
  updateSystemConfig as updateSystemConfigRoute,
  setAdminRoles as setAdminRolesRoute,
  resetAdminPassword as resetAdminPasswordRoute,
} from '@market/contracts';
import { route, type RouteBinding } from '@market/shared/http';
import type { AdminDeps } from '../application/deps';
import { changeOwnPassword } from '../application/change-own-password';
import { createAdmin } from '../application/create-admin';
import { disableAdmin } from '../application/disable-admin';
import { enableAdmin } from '../application/enable-admin';
import { listAdmins } from '../application/list-admins';
import { getCurrentAdmin } from '../application/get-current-admin';
import { getDashboard } from '../application/get-dashboard';
import { latestMoneyCheck, runMoneyCheck } from '../application/check-money';
import { issueCaptcha } from '../application/issue-captcha';
import { listAuditLogs } from '../application/list-audit-logs';
import { listSystemConfigs } from '../application/list-system-configs';
import { logInAdmin } from '../application/log-in-admin';
import { logOutAdmin } from '../application/log-out-admin';
import { resetAdminPassword } from '../application/reset-admin-password';
import { setAdminRoles } from '../application/set-admin-roles';
import { updateSystemConfig } from '../application/update-system-config';
import { verifyAuditLog } from '../application/verify-audit-log';

export function adminRoutes(deps: AdminDeps): RouteBinding[] {
  return [
    route(getAdminCaptcha, () => issueCaptcha(deps)),
    route(adminLogin, ({ body, identity }) => logInAdmin(deps, body, identity.ip)),
    route(adminLogout, ({ identity }) => logOutAdmin(deps, identity)),
    route(getAdminMe, ({ identity }) => getCurrentAdmin(deps, identity)),
    route(changeAdminPassword, ({ identity, body }) => changeOwnPassword(deps, identity, body)),
    route(listAdminsRoute, ({ query }) => listAdmins(deps, query)),
    route(createAdminRoute, ({ identity, body }) => createAdmin(deps, body, identity)),
    route(disableAdminRoute, ({ identity, params }) => disableAdmin(deps, identity, params.id)),
    route(enableAdminRoute, ({ identity, params }) => enableAdmin(deps, identity, params.id)),
    route(setAdminRolesRoute, ({ identity, params, body }) => setAdminRoles(deps, identity, params.id, body.roles)),
    route(resetAdminPasswordRoute, ({ identity, params, body }) => resetAdminPassword(deps, identity, params.id, body.password)),
    route(getDashboardRoute, () => getDashboard(deps)),
    route(getMoneyCheck, () => latestMoneyCheck(deps)),
    route(runMoneyCheckRoute, () => runMoneyCheck(deps)),
    route(listSystemConfigsRoute, () => listSystemConfigs(deps)),
    route(updateSystemConfigRoute, ({ identity, params, body }) => updateSystemConfig(deps, identity, params.key, body.value)),
    route(listAuditLogsRoute, ({ query }) => listAuditLogs(deps, query)),
    route(verifyAuditLogsRoute, () => verifyAuditLog(deps)),
  ];
}
