import type { ServiceContext } from '@market/shared/service';

/** Listings waiting for the back office's review, read at scrape through the review index. */
export function registerCatalogMetrics(ctx: ServiceContext) {
  ctx.metrics.scrapeGauge('market_listings_pending_review', 'Listings submitted and waiting for review', [], async () => {
    const [row] = (await ctx.db.query(`SELECT count(*)::int AS pending FROM listings WHERE review_status = 'pending'`)) as Array<{ pending: number }>;
    return [{ value: row!.pending }];
  });
}
