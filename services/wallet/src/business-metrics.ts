import type { ServiceContext } from '@market/shared/service';

/** Recharges by outcome, counted and summed in fen once the wallet's transaction committed. */
export function registerWalletMetrics(ctx: ServiceContext) {
  const recharges = ctx.metrics.counter('market_recharges_total', 'Recharges ended, by outcome (succeeded, failed, expired)', ['outcome']);
  const amounts = ctx.metrics.counter('market_recharges_fen_total', 'Amounts of recharges ended, by outcome, in fen', ['outcome']);
  const ended = (outcome: string, amount: number) => {
    recharges.inc({ outcome });
    amounts.inc({ outcome }, amount);
  };
  ctx.onCommittedEvent('payment.succeeded', (data) => {
    if (data.purpose === 'recharge') ended('succeeded', data.amount);
  });
  ctx.onCommittedEvent('payment.failed', (data) => ended('failed', data.amount));
  ctx.onCommittedEvent('payment.expired', (data) => ended('expired', data.amount));
}
