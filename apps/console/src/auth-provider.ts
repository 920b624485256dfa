import type { AccessControlProvider, AuthProvider } from '@refinedev/core';
import { ApiProblem, ok } from '@market/sdk';
import { allows, type Capability, PERMISSIONS } from './access';
import { loadSession, market, saveSession, type Session } from './session';

export interface LoginInput {
  username: string;
  password: string;
  captcha_id: string;
  captcha_code: string;
}

/**
 * Roles change while a session lasts: the profile (and with it the menu and the buttons) is read
 * again once per page load. A refused read signs out through the client (`onSignedOut`).
 */
let refreshed: Promise<void> | undefined;
async function refreshProfile(session: Session) {
  const me = await market.api.GET('/api/admin/me');
  if (me.data) saveSession({ ...session, admin: me.data });
}

export const authProvider: AuthProvider = {
  async login(input: LoginInput) {
    try {
      const login = await ok(market.api.POST('/api/admin/auth/login', { body: input }));
      market.signIn({ accessToken: login.access_token });
      // the profile carries the permissions the menu and every button follow
      const me = await ok(market.api.GET('/api/admin/me'));
      saveSession({ tokens: { accessToken: login.access_token }, admin: me });
      return { success: true, redirectTo: '/' };
    } catch (error) {
      const problem = error instanceof ApiProblem ? error : new ApiProblem(0, { detail: String(error) });
      return { success: false, error: { name: problem.code, message: problem.detail } };
    }
  },
  async logout() {
    if (market.tokens()) await market.api.POST('/api/admin/auth/logout').catch(() => undefined);
    market.signOut();
    saveSession(null);
    return { success: true, redirectTo: '/login' };
  },
  async check() {
    const session = loadSession();
    if (!session || !market.tokens()) return { authenticated: false, redirectTo: '/login', logout: true };
    await (refreshed ??= refreshProfile(session));
    return { authenticated: true };
  },
  async onError(error: unknown) {
    const status = error instanceof ApiProblem ? error.status : (error as { statusCode?: number } | null)?.statusCode;
    if (status === 401) return { logout: true, redirectTo: '/login' };
    return {};
  },
  async getIdentity() {
    const admin = loadSession()?.admin;
    return admin ? { id: admin.id, name: admin.nickname || admin.username } : null;
  },
  async getPermissions() {
    return loadSession()?.admin.permissions ?? null;
  },
};

/** Menu entries and buttons ask here; the answer follows the admin's permissions (src/access.ts). */
export const accessControlProvider: AccessControlProvider = {
  can: async ({ resource, action }) => {
    const capability = (action === 'list' || action === 'show' ? resource : `${resource}.${action}`) as Capability;
    if (!(capability in PERMISSIONS)) return { can: false };
    return { can: allows(loadSession()?.admin.permissions, capability) };
  },
};
