import {
  adminFreezeUser,
  adminListUsers,
  adminUnfreezeUser,
  getMe,
  getRealnameStatus,
  loginWithSms,
  logout,
  refreshToken,
  sendSmsCode,
  startRealname,
} from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { route, type RouteBinding } from '@market/shared/http';
import type { IdentityDeps } from '../application/deps';
import { freezeUser, unfreezeUser } from '../application/freeze-user';
import { listUsers } from '../application/list-users';
import { logInWithSms } from '../application/log-in-with-sms';
import { logOut } from '../application/log-out';
import { readCurrentUser } from '../application/read-current-user';
import { readRealnameStatus } from '../application/read-realname-status';
import { rotateRefreshToken } from '../application/rotate-refresh-token';
import { sendLoginCode } from '../application/send-login-code';
import { startRealnameVerification } from '../application/start-realname-verification';

const clientIp = (identity: Identity) => (identity.kind === 'service' ? null : identity.ip);

export function identityRouteBindings(deps: IdentityDeps): RouteBinding[] {
  return [
    route(sendSmsCode, ({ body, identity }) => sendLoginCode(deps, body.phone, clientIp(identity))),
    route(loginWithSms, ({ body, identity }) => logInWithSms(deps, body, clientIp(identity))),
    route(refreshToken, ({ body, identity }) => rotateRefreshToken(deps, body.refresh_token, clientIp(identity))),
    route(logout, ({ body, identity }) => logOut(deps, identity, body.refresh_token)),
    route(getMe, ({ identity }) => readCurrentUser(deps, identity.sub)),
    route(startRealname, ({ body, identity }) => startRealnameVerification(deps, identity, body)),
    route(getRealnameStatus, ({ identity }) => readRealnameStatus(deps, identity.sub)),
    route(adminListUsers, ({ query }) => listUsers(deps, query)),
    route(adminFreezeUser, ({ params, body, identity }) => freezeUser(deps, identity, params.id, body.reason)),
    route(adminUnfreezeUser, ({ params, identity }) => unfreezeUser(deps, identity, params.id)),
  ];
}
