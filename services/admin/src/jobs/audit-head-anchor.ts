import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { AdminDeps } from '../application/deps';
import { logAuditHeads } from '../application/log-audit-heads';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Logs the audit chains' heads once a day (ADR 0067): the anchor a rewritten chain is caught against. */
export function auditHeadAnchor(deps: AdminDeps, log: Logger): Job {
  return periodicJob('audit head anchor', DAY_MS, () => logAuditHeads(deps), log);
}
