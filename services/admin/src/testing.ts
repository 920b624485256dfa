// What the testkit hands to other workspaces' tests from admin (package entry `@market/admin/testing`):
// seeding admins and their sessions directly, and the money check every money test ends with.
export { DEV_BOOTSTRAP_PASSWORD } from './config';
export { Argon2Passwords, MINIMUM_PASSWORD_COST } from './adapters/argon2-passwords';
export { createAdmin } from './application/create-admin';
export { verifyMoney } from './application/verify-money';
export { insertAdminSession } from './persistence/admin-sessions';
export { insertAdmin } from './persistence/admin-users';
