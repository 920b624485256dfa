import { auditChainHeads, headsHash } from '../persistence/audit-chain';
import type { AdminDeps } from './deps';

/**
 * Writes every audit chain's head, and the one hash over them all, to the log (ADR 0067). The log
 * leaves the database for the log store, so someone who can write the database but not the log
 * store cannot rewrite a chain without the next verification's heads disagreeing with a logged
 * line: a rewritten chain is then dated to the day after the last head that still matches.
 */
export async function logAuditHeads(deps: Pick<AdminDeps, 'db' | 'log'>) {
  const chains = await auditChainHeads(deps.db);
  const anchor = { head_hash: headsHash(chains), chains };
  deps.log.info({ audit_heads: anchor }, 'audit chain heads');
  return anchor;
}
