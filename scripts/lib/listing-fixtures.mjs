// Listings like the ones the API makes (the same games, words and prices), for the bench scripts
// that need a catalog: one through the API's request body, or many at once by SQL.

export const GAMES = ['王者荣耀', '和平精英', '原神', 'League of Legends', '英雄联盟', '永劫无间'];
export const WORDS = ['全英雄', '荣耀王者', '满级', '限定皮肤', 'ranked', 'rare skins', '高胜率', '典藏', 'mythic', '星元'];

const pick = (list, i) => list[i % list.length];

/** The body of `POST /api/listings` for the i-th listing. */
export function listingBody(i) {
  return {
    title: `${pick(GAMES, i)} ${pick(WORDS, i * 7 + 3)} ${pick(WORDS, i * 3 + 1)} #${i}`,
    game: pick(GAMES, i),
    server: i % 2 ? '微信区' : 'QQ区',
    description: `${pick(WORDS, i * 5)} 皮肤 ${100 + (i % 300)}+，${pick(WORDS, i + 4)}，可长租`,
    hourly_price: 300 + ((i * 37) % 2000),
    min_hours: 1,
    max_hours: 24,
    deposit: 5000,
  };
}

/**
 * Inserts `count` online, approved listings into `table` (catalog's listings) in one statement,
 * newest first one second apart; with `rareEvery`, every such listing's title also holds 稀有
 * ("rare"), a text the others lack. `db` is anything with `query(text, params)` (pg, TypeORM).
 */
export async function insertOnlineListings(db, { table, count, rareEvery = 0 }) {
  await db.query(
    `INSERT INTO ${table} (id, owner_id, title, game, server, description, hourly_price, min_hours, max_hours, deposit,
       status, review_status, created_at, updated_at)
     SELECT gen_random_uuid(), gen_random_uuid(),
       ($1::text[])[1 + n % 6] || ' ' || ($2::text[])[1 + (n * 7 + 3) % 10] || ' ' || ($2::text[])[1 + (n * 3 + 1) % 10]
         || CASE WHEN n % NULLIF($4::int, 0) = 0 THEN ' 稀有' ELSE '' END || ' #' || n,
       ($1::text[])[1 + n % 6], '微信区',
       ($2::text[])[1 + (n * 5) % 10] || ' 皮肤 ' || (100 + n % 300) || '+，' || ($2::text[])[1 + (n + 4) % 10] || '，可长租',
       300 + (n * 37) % 2000, 1, 24, 5000, 'online', 'approved',
       now() - make_interval(secs => n), now()
     FROM generate_series(1, $3::int) AS n`,
    [GAMES, WORDS, count, rareEvery],
  );
  await db.query(`ANALYZE ${table}`);
}
