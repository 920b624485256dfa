import { sqlMigration } from '@market/shared/db';

export const CreateListings1763900000000 = sqlMigration(
  'CreateListings1763900000000',
  [
    `
      CREATE TABLE listings (
        id uuid PRIMARY KEY,
        owner_id uuid NOT NULL,
        title text NOT NULL,
        game text NOT NULL,
        server text,
        description text,
        hourly_price integer NOT NULL CHECK (hourly_price > 0),
        min_hours integer NOT NULL CHECK (min_hours >= 1),
        max_hours integer CHECK (max_hours IS NULL OR max_hours >= min_hours),
        deposit integer NOT NULL CHECK (deposit >= 0),
        screenshot_urls text[] NOT NULL DEFAULT '{}',
        status text NOT NULL CHECK (status IN ('draft', 'online', 'offline', 'abnormal', 'deleted')),
        review_status text NOT NULL CHECK (review_status IN ('none', 'pending', 'approved', 'rejected')),
        reject_reason text,
        status_reason text,
        rented boolean NOT NULL DEFAULT false,
        open_upload_id uuid,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`,
    // The public search only ever reads online rows, in one of its three orders.
    `CREATE INDEX listings_online_newest ON listings (created_at DESC, id DESC) WHERE status = 'online'`,
    `CREATE INDEX listings_online_price ON listings (hourly_price, id) WHERE status = 'online'`,
    `CREATE INDEX listings_online_game ON listings (game, created_at DESC, id DESC) WHERE status = 'online'`,
    `CREATE INDEX listings_owner ON listings (owner_id, created_at DESC, id DESC)`,
    `CREATE INDEX listings_review ON listings (review_status, status, created_at DESC, id DESC)`,
    `CREATE INDEX listings_all_newest ON listings (created_at DESC, id DESC)`,
    // Credentials live apart from the listing row, so no listing query can select them by accident.
    `
      CREATE TABLE listing_credentials (
        listing_id uuid PRIMARY KEY REFERENCES listings (id),
        sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    // One row per order seen on a listing: `rented` is "some order here has not ended", which stays
    // right whatever order the order events arrive in.
    `
      CREATE TABLE listing_rentals (
        order_id uuid PRIMARY KEY,
        listing_id uuid NOT NULL,
        started_at timestamptz,
        ended_at timestamptz
      )`,
    `CREATE INDEX listing_rentals_active ON listing_rentals (listing_id) WHERE ended_at IS NULL`,
  ],
  [
    `DROP TABLE listing_rentals`,
    `DROP TABLE listing_credentials`,
    `DROP TABLE listings`,
  ],
);
