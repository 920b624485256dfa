import { permissionsOf, type Admin, type AuditLog, type CurrentAdmin, type SystemConfig, type z } from '@market/contracts';
import type { AdminUserRow } from '../persistence/admin-users';
import type { AuditLogRow } from '../persistence/audit-logs';
import type { SystemConfigRow } from '../persistence/system-configs';

export function adminView(row: AdminUserRow): z.infer<typeof Admin> {
  return {
    id: row.id,
    username: row.username,
    nickname: row.nickname,
    status: row.status,
    roles: row.roles,
    created_at: row.created_at.toISOString(),
  };
}

export function currentAdminView(row: AdminUserRow): z.infer<typeof CurrentAdmin> {
  return { ...adminView(row), permissions: permissionsOf(row.roles) };
}

export function systemConfigView(row: SystemConfigRow): z.infer<typeof SystemConfig> {
  return {
    key: row.key,
    value: row.value as z.infer<typeof SystemConfig>['value'],
    description: row.description,
    updated_at: row.updated_at ? row.updated_at.toISOString() : null,
    updated_by: row.updated_by,
  };
}

export function auditLogView(row: AuditLogRow): z.infer<typeof AuditLog> {
  return {
    id: row.id,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    action: row.action,
    biz_type: row.biz_type,
    biz_id: row.biz_id,
    detail: row.detail,
    ip: row.ip,
    result: row.result,
    request_id: row.request_id,
    created_at: row.created_at.toISOString(),
  };
}
