import type { AuditEntry } from '@market/shared/events';

/** An audit entry about one of the back office's own accounts: every such entry names the account. */
export function adminUserEntry(action: string, adminId: string | null, detail: Record<string, unknown>): Omit<AuditEntry, 'result'> {
  return { action, biz_type: 'admin_user', biz_id: adminId, detail };
}
