import { sqlMigration } from '@market/shared/db';

/**
 * The public text search (a literal substring of title or description, any case) through trigram
 * indexes instead of a scan of every online listing (ADR 0020). pg_trgm makes trigrams of Chinese
 * as of any letters; a query too short to hold a trigram (1–2 characters) is left to the planner's
 * other paths, with the same answers. Provisioning creates the extension (a service role may not);
 * a superuser (tests, development) creates it here. Either way it may live in any schema, so the
 * operator class is named through the schema it is in. Without fastupdate a new listing goes
 * straight into the index: listings are written seldom and read often, and a long pending list
 * makes the planner fall back to a scan until vacuum empties it.
 */
export const IndexTextSearch1763900000004 = sqlMigration(
  'IndexTextSearch1763900000004',
  [
    // test files migrate their schemas at once: one creates the extension, the others wait and see it
    `SELECT pg_advisory_xact_lock(hashtext('market: create extension pg_trgm'))`,
    `DO $$
     BEGIN
       IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
         CREATE SCHEMA IF NOT EXISTS extensions;
         CREATE EXTENSION pg_trgm SCHEMA extensions;
       END IF;
     END $$`,
    `DO $$
     DECLARE
       home text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm');
     BEGIN
       EXECUTE format('CREATE INDEX listings_online_title_trgm ON listings USING gin (title %I.gin_trgm_ops) WITH (fastupdate = off) WHERE status = ''online''', home);
       EXECUTE format('CREATE INDEX listings_online_description_trgm ON listings USING gin (description %I.gin_trgm_ops) WITH (fastupdate = off) WHERE status = ''online''', home);
     END $$`,
  ],
  [`DROP INDEX listings_online_description_trgm`, `DROP INDEX listings_online_title_trgm`],
);
