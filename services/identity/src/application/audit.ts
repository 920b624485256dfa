import { recordAudit, type AuditEntry, type Identity } from '@market/shared';
import type { IdentityDeps } from './deps';

/** A refusal rolls its own transaction back, so its audit entry is written in a transaction of its own. */
export async function auditRefusal(deps: IdentityDeps, identity: Identity | null, entry: Omit<AuditEntry, 'result'>) {
  await deps.db.transaction((tx) => recordAudit(deps.events, tx, identity, { ...entry, result: 'failure' }));
}
