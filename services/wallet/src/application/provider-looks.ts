import type { Queryable } from '@market/shared/db';
import type { WalletDeps } from './deps';

/**
 * One kind of money going out to a provider (refunds, withdrawals), as its looks reach it: one record
 * claimed when a request or the back office wants it looked at now, or a batch whose next look is due
 * for the periodic job. Claiming pushes the next look ahead, so replicas never look at one record at
 * once and no lock is held while the provider is asked; the look itself (send once, else ask) is the
 * kind's own.
 */
export interface ProviderLooks<Row extends { id: string; status: string }> {
  /** names the record in the logs (`refund_id`, `withdrawal_id`) */
  noun: 'refund' | 'withdrawal';
  find(db: Queryable, id: string): Promise<Row | null>;
  /** takes one record if its next look is due, pushing that look ahead as the kind's `recheckMs` setting says */
  claim(db: Queryable, id: string, now: Date, recheckMs: number): Promise<Row | null>;
  /** takes up to `limit` records whose next look is due, as `claim` does */
  claimDue(db: Queryable, now: Date, recheckMs: number, limit: number): Promise<string[]>;
  /** the states a claimed record is still looked at in (another look may have ended it since) */
  lookedAtIn: readonly Row['status'][];
  look(deps: WalletDeps, row: Row): Promise<void>;
}

/** How far a claim pushes the next look ahead: the `recheckMs` of the kind's own settings (`deps.refund`, `deps.withdrawal`). */
const recheckMs = (deps: WalletDeps, kind: { noun: 'refund' | 'withdrawal' }) => deps[kind.noun].recheckMs;

/** How many due records one round of the periodic job takes. */
const DUE_BATCH = 50;

/** A look that fails (the provider unreachable, an answer not understood) leaves the outcome unknown: the next look asks again. */
async function lookOnce<Row extends { id: string; status: string }>(deps: WalletDeps, kind: ProviderLooks<Row>, row: Row): Promise<void> {
  try {
    await kind.look(deps, row);
  } catch (err) {
    deps.log.warn({ [`${kind.noun}_id`]: row.id, err: { message: (err as Error).message } }, `${kind.noun} outcome not known yet; asked again later`);
  }
}

/** Sends (or asks about) one record now, if it is due; answers it as it then stands. */
export async function lookNow<Row extends { id: string; status: string }>(deps: WalletDeps, kind: ProviderLooks<Row>, id: string): Promise<Row> {
  const claimed = await kind.claim(deps.db, id, new Date(), recheckMs(deps, kind));
  if (claimed) await lookOnce(deps, kind, claimed);
  return (await kind.find(deps.db, id))!;
}

/** The periodic job's round: every record whose next look is due gets one; answers how many were claimed. */
export async function lookAtDue<Row extends { id: string; status: string }>(deps: WalletDeps, kind: ProviderLooks<Row>, now: Date): Promise<number> {
  const ids = await kind.claimDue(deps.db, now, recheckMs(deps, kind), DUE_BATCH);
  for (const id of ids) {
    const row = await kind.find(deps.db, id);
    if (row && kind.lookedAtIn.includes(row.status)) await lookOnce(deps, kind, row);
  }
  return ids.length;
}
