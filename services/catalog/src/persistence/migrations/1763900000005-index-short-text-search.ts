import { sqlMigration } from '@market/shared/db';

/**
 * Text searches of one or two characters (common in Chinese: 皮肤, 国服) hold no trigram, so the
 * trigram indexes of migration 0004 cannot serve them and a rare one scanned every online listing.
 * This indexes each online listing's characters and pairs of adjacent characters (lower-cased, of
 * title and of description apart, as ILIKE matches each apart), so such a search looks its one
 * gram up. `lower` maps one character to one character (libc collations), so a query of one or two
 * characters lower-cased is exactly one gram. Duplicates in the array are harmless: GIN keeps each
 * key of a row once.
 */
export const IndexShortTextSearch1763900000005 = sqlMigration(
  'IndexShortTextSearch1763900000005',
  [
    // Only built-in functions inside, so the index expression means the same whatever the search_path
    // of whoever evaluates it (an insert, ANALYZE, a restore). Not STRICT: a listing without a
    // description still has its title's grams.
    `CREATE FUNCTION listing_text_grams(title text, description text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT t || ARRAY(SELECT t[i] || t[i + 1] FROM generate_series(1, cardinality(t) - 1) AS i)
           || d || ARRAY(SELECT d[i] || d[i + 1] FROM generate_series(1, cardinality(d) - 1) AS i)
       FROM string_to_array(lower(coalesce(title, '')), NULL) AS t, string_to_array(lower(coalesce(description, '')), NULL) AS d
     $$`,
    `CREATE INDEX listings_online_text_grams ON listings USING gin (listing_text_grams(title, description)) WITH (fastupdate = off) WHERE status = 'online'`,
  ],
  [`DROP INDEX listings_online_text_grams`, `DROP FUNCTION listing_text_grams(text, text)`],
);
