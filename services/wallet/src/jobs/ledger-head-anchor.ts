import type { Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { WalletDeps } from '../application/deps';
import { logLedgerHeads } from '../application/log-ledger-heads';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Logs the ledger's chain heads once a day (ADR 0067): the anchor a rewritten chain is caught against. */
export function ledgerHeadAnchorJob(deps: WalletDeps, log: Logger): Job {
  return periodicJob('ledger head anchor', DAY_MS, () => logLedgerHeads(deps), log);
}
