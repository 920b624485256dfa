import { sqlMigration } from '@market/shared/db';

/**
 * Catalog's read model of published ratings (ADR 0066): each counted rating once (`counted_ratings`,
 * so a replayed event counts nothing), the listing's totals on the listing, the owner's in one row
 * per owner so a listing created later shows them too.
 */
export const RatingTotals1767100000001 = sqlMigration(
  'RatingTotals1767100000001',
  [
    `ALTER TABLE listings ADD COLUMN rating_count integer NOT NULL DEFAULT 0, ADD COLUMN rating_sum integer NOT NULL DEFAULT 0`,
    `
      CREATE TABLE owner_rating_totals (
        owner_id uuid PRIMARY KEY,
        rating_count integer NOT NULL,
        rating_sum integer NOT NULL
      )`,
    `
      CREATE TABLE counted_ratings (
        rating_id uuid PRIMARY KEY,
        listing_id uuid NOT NULL,
        owner_id uuid NOT NULL,
        stars integer NOT NULL,
        counted_at timestamptz NOT NULL
      )`,
  ],
  [`DROP TABLE counted_ratings`, `DROP TABLE owner_rating_totals`, `ALTER TABLE listings DROP COLUMN rating_sum, DROP COLUMN rating_count`],
);
