import type { ServiceContext } from '@market/shared/service';

const WAITING_FOR_SETTLEMENT = ['pending_checkout_confirm', 'pending_correction_confirm'];

/**
 * What a business owner watches of orders: moves counted once their transaction committed, money
 * in fen, and, read at scrape through indexes, open disputes, orders waiting for the checkout to be
 * confirmed (settlement), and orders past their deadline that the timeout scan has not moved yet.
 */
export function registerOrderMetrics(ctx: ServiceContext) {
  const { metrics } = ctx;
  const orders = metrics.counter('market_orders_total', 'Order moves committed, by event (created, paid, completed, cancelled, closed)', ['event']);
  const gmv = metrics.counter('market_orders_gmv_fen_total', 'Gross merchandise value: amounts (rent + deposit) of orders paid, in fen');
  const fees = metrics.counter('market_platform_fees_fen_total', 'Platform fees of orders settled (completed or closed), in fen');
  ctx.onCommittedEvent('order.created', () => orders.inc({ event: 'created' }));
  ctx.onCommittedEvent('order.paid', (data) => {
    orders.inc({ event: 'paid' });
    gmv.inc(data.amount);
  });
  ctx.onCommittedEvent('order.cancelled', () => orders.inc({ event: 'cancelled' }));
  ctx.onCommittedEvent('order.completed', (data) => {
    orders.inc({ event: 'completed' });
    fees.inc(data.platform_fee);
  });
  ctx.onCommittedEvent('order.closed', (data) => {
    orders.inc({ event: 'closed' });
    fees.inc(data.platform_fee);
  });

  const disputes = async () =>
    (await ctx.db.query(
      `SELECT count(*)::int AS open, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float AS oldest
         FROM disputes WHERE status = 'open'`,
    )) as Array<{ open: number; oldest: number }>;
  metrics.scrapeGauge('market_disputes_open', 'Disputes waiting for arbitration', [], async () => [{ value: (await disputes())[0]!.open }]);
  metrics.scrapeGauge('market_disputes_oldest_open_seconds', 'Age of the oldest open dispute (0 when none)', [], async () => [
    { value: (await disputes())[0]!.oldest },
  ]);

  const settlement = async () =>
    (await ctx.db.query(
      `SELECT count(*)::int AS waiting, coalesce(extract(epoch FROM now() - min(status_changed_at)), 0)::float AS oldest
         FROM orders WHERE status = ANY($1)`,
      [WAITING_FOR_SETTLEMENT],
    )) as Array<{ waiting: number; oldest: number }>;
  metrics.scrapeGauge('market_orders_settlement_waiting', 'Orders whose checkout waits for confirmation before the wallet settles them', [], async () => [
    { value: (await settlement())[0]!.waiting },
  ]);
  metrics.scrapeGauge('market_orders_settlement_waiting_oldest_seconds', 'How long the oldest order has waited for its checkout to be confirmed', [], async () => [
    { value: (await settlement())[0]!.oldest },
  ]);

  metrics.scrapeGauge(
    'market_orders_overdue_seconds',
    'How far past its deadline the most overdue order is (0 when the timeout scan keeps up)',
    [],
    async () => {
      const [row] = (await ctx.db.query(
        `SELECT coalesce(extract(epoch FROM now() - min(deadline_at)), 0)::float AS overdue FROM orders WHERE deadline_at < now()`,
      )) as Array<{ overdue: number }>;
      return [{ value: row!.overdue }];
    },
  );
}
