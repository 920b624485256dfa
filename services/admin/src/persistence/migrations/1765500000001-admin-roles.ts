import { sqlMigration } from '@market/shared/db';

/**
 * Admins get roles (ADR 0033). Every admin that exists already could do everything, so each keeps
 * that as a super admin; admins created from now on hold only the roles they are given.
 */
export const AdminRoles1765500000001 = sqlMigration(
  'AdminRoles1765500000001',
  [
    `ALTER TABLE admin_users ADD COLUMN roles text[] NOT NULL DEFAULT '{}'
       CHECK (roles <@ ARRAY['super_admin', 'reviewer', 'customer_service', 'finance', 'auditor']::text[])`,
    `UPDATE admin_users SET roles = '{super_admin}'`,
  ],
  [`ALTER TABLE admin_users DROP COLUMN roles`],
);
