import { v7 as uuidv7 } from 'uuid';
import { permissionsOf, type AdminLogin, type z } from '@market/contracts';
import { signAccessToken, type Identity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { auditRefusal, recordAudit } from '@market/shared/events';
import { loginVerdict } from '../domain/admin-user';
import { captchaMatches } from '../domain/captcha';
import { AdminDisabled, CaptchaWrong, InvalidCredentials, LoginLocked } from '../domain/errors';
import { findAdminByUsername } from '../persistence/admin-users';
import { insertAdminSession } from '../persistence/admin-sessions';
import { admitLoginAttempt, loginAttempt, loginSucceeded } from './admit-login-attempt';
import type { AdminDeps } from './deps';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

export interface AdminLoginInput {
  username: string;
  password: string;
  captcha_id: string;
  captcha_code: string;
}

type FailureReason = 'captcha_invalid' | 'unknown_username' | 'locked' | 'wrong_password' | 'disabled' | 'changed_meanwhile';

/**
 * Captcha first (spent whatever the outcome), then the password. The attempt is booked on the
 * username before the password is checked, whether an admin has that username or not, so its
 * count and lock survive the refusal and an unknown name is refused exactly like a known one: the
 * same statuses, the same lockout, an argon2 verification either way. The refusal's audit entry is
 * written in a transaction of its own for the same reason.
 */
export async function logInAdmin(deps: AdminDeps, input: AdminLoginInput, ip: string | null): Promise<z.infer<typeof AdminLogin>> {
  const anonymous: Identity = { kind: 'anonymous', ip };
  const username = input.username.toLowerCase();
  const refuse = (reason: FailureReason, adminId: string | null) =>
    auditRefusal(deps.db, deps.events, anonymous, adminUserEntry('admin.login', adminId, { username, reason }));

  const stored = isUuid(input.captcha_id) ? await deps.captchas.take(input.captcha_id) : null;
  if (stored === null || !captchaMatches(stored, input.captcha_id, input.captcha_code)) {
    await refuse('captcha_invalid', null);
    throw new CaptchaWrong();
  }

  const admin = await findAdminByUsername(deps.db, username);
  const attempt = loginAttempt(username, ip);
  try {
    await admitLoginAttempt(deps, attempt, admin?.id ?? null);
  } catch (refusal) {
    if (refusal instanceof LoginLocked) await refuse('locked', admin?.id ?? null);
    throw refusal;
  }

  if (!admin) {
    await deps.passwords.verifyAgainstNobody(input.password);
    await refuse('unknown_username', null);
    throw new InvalidCredentials();
  }

  const passwordMatches = await deps.passwords.verify(admin.password_hash, input.password);
  if (passwordMatches) await loginSucceeded(deps, attempt);
  const verdict = loginVerdict(passwordMatches, admin.status);
  if (verdict === 'wrong_password') {
    await refuse('wrong_password', admin.id);
    throw new InvalidCredentials();
  }
  if (verdict === 'disabled') {
    await refuse('disabled', admin.id);
    throw new AdminDisabled();
  }

  const sessionId = uuidv7();
  const opened = await deps.db.transaction(async (tx) => {
    if (!(await insertAdminSession(tx, { id: sessionId, adminId: admin.id, ip, verifiedHash: admin.password_hash }))) return false;
    // Redis inside the transaction: when it fails the session is not opened, rather than opened
    // for a token the gateway would refuse (ADR 0034).
    await deps.revocations.setAdminRoles(admin.id, admin.roles);
    await deps.revocations.openAdminSession(admin.id, sessionId, deps.config.ADMIN_TOKEN_TTL_SECONDS);
    await recordAudit(deps.events, tx, { kind: 'admin', sub: admin.id, sid: sessionId, ip, perms: permissionsOf(admin.roles) }, adminUserEntry('admin.login', admin.id, { username }));
    return true;
  });
  // Disabled or given a new password while this password was being checked.
  if (!opened) {
    await refuse('changed_meanwhile', admin.id);
    throw new InvalidCredentials();
  }
  const ttl = deps.config.ADMIN_TOKEN_TTL_SECONDS;
  const { token } = signAccessToken('admin', admin.id, sessionId, deps.config.ADMIN_TOKEN_SECRET, ttl);
  return { access_token: token, token_type: 'Bearer', expires_in: ttl, admin: adminView(admin) };
}
