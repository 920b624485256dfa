import { verifyAuditChains } from '../persistence/audit-chain';
import type { AdminDeps } from './deps';

/**
 * Recomputes the audit log's hash chains (ADR 0067) from one read-only snapshot, so entries stored
 * while it reads neither show as breaks nor move the heads it compares with.
 */
export async function verifyAuditLog(deps: Pick<AdminDeps, 'db'>) {
  const checkedAt = new Date();
  const found = await deps.db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return verifyAuditChains(tx);
  });
  return { checked_at: checkedAt.toISOString(), ...found };
}
