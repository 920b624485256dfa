import { sqlMigration } from '@market/shared/db';

/**
 * Two-way ratings of completed orders (ADR 0066): one per order and direction, so of two ratings
 * by one party only one can be stored. `window_closes_at` is fixed by the order's first rating, so
 * both parties and every replica's publisher work by the same close; `published_at` is set once,
 * when both have rated or the publisher finds the window closed.
 */
export const CreateRatings1767100000000 = sqlMigration(
  'CreateRatings1767100000000',
  [
    `
      CREATE TABLE ratings (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders (id),
        listing_id uuid NOT NULL,
        direction text NOT NULL CHECK (direction IN ('renter_to_owner', 'owner_to_renter')),
        rater_id uuid NOT NULL,
        ratee_id uuid NOT NULL,
        stars integer NOT NULL CHECK (stars BETWEEN 1 AND 5),
        tags text[] NOT NULL DEFAULT '{}',
        comment text,
        comment_hidden_by uuid,
        comment_hidden_at timestamptz,
        comment_hidden_reason text,
        window_closes_at timestamptz NOT NULL,
        published_at timestamptz,
        created_at timestamptz NOT NULL,
        UNIQUE (order_id, direction),
        CHECK ((comment_hidden_at IS NULL) = (comment_hidden_by IS NULL))
      )`,
    `CREATE INDEX ratings_unpublished ON ratings (window_closes_at) WHERE published_at IS NULL`,
    `CREATE INDEX ratings_of_ratee ON ratings (ratee_id, direction) WHERE published_at IS NOT NULL`,
    `CREATE INDEX orders_completed_by_renter ON orders (renter_id) WHERE status = 'completed'`,
  ],
  [`DROP INDEX orders_completed_by_renter`, `DROP TABLE ratings`],
);
