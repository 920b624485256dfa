#!/usr/bin/env node
// `npm run bench:search`: how long catalog's public text search takes as the catalog grows, by the
// kind of text (one or two characters or more; common, rare, absent), through the same query code
// the service runs (services/catalog/dist). Build first (`npm run build`).
// A scratch schema gets catalog's migrations and BENCH_SEARCH_LISTINGS online listings (100,000) by
// SQL, then each search's first page (20) is run BENCH_SEARCH_RUNS times (15); the median and the
// slowest are printed. The schema is dropped at the end.
// Env: DATABASE_URL (local superuser), BENCH_SEARCH_LISTINGS, BENCH_SEARCH_RUNS.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { requireBuilt, root } from './lib/built.mjs';
import { insertOnlineListings } from './lib/listing-fixtures.mjs';
import { quantile } from './lib/quantile.mjs';

const { createDataSource, initializeDataSource } = requireBuilt('packages/shared/dist/db/index.js');
const { queryListings } = requireBuilt('services/catalog/dist/persistence/listing-queries.js');

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const count = Number(process.env.BENCH_SEARCH_LISTINGS ?? 100_000);
const runs = Number(process.env.BENCH_SEARCH_RUNS ?? 15);

const migrationsDir = 'services/catalog/dist/persistence/migrations';
const migrations = readdirSync(path.join(root, migrationsDir))
  .filter((f) => f.endsWith('.js'))
  .sort()
  .flatMap((f) => Object.values(requireBuilt(`${migrationsDir}/${f}`)));

const schema = `bench_search_${randomBytes(4).toString('hex')}`;
const db = createDataSource({ url, schema, entities: [], migrations, statementTimeoutMs: 120_000 });
await initializeDataSource(db, schema);

try {
  const started = Date.now();
  // every 5,000th listing also holds 稀有 ("rare")
  await insertOnlineListings(db, { table: 'listings', count, rareEvery: 5000 });
  console.log(`${count} online listings inserted and analysed in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const searches = [
    ['1 character, in every listing', '皮'],
    ['2 characters, in every listing', '皮肤'],
    ['2 characters, in 1 in 10', '典藏'],
    ['2 characters, in 1 in 5,000', '稀有'],
    ['2 characters, in none', '无号'],
    ['1 Latin letter, common', 'r'],
    ['2 Latin letters, in none', 'qx'],
    ['3+ characters, in 1 in 5', '荣耀王者'],
    ['3+ characters, in 1 in 5,000', ' 稀有 #'],
    ['3+ characters, in none', '无此账号'],
  ];
  const rows = [];
  for (const [label, text] of searches) {
    for (const game of [undefined, '原神']) {
      const times = [];
      let found = 0;
      for (let i = 0; i < runs; i += 1) {
        const t0 = process.hrtime.bigint();
        const page = await queryListings(db, { status: 'online', game, text, order: 'newest', cursor: undefined, limit: 20 });
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        found = page.items.length;
      }
      times.sort((a, b) => a - b);
      rows.push({ search: label, q: text, game: game ?? '-', found, 'median ms': quantile(times, 0.5).toFixed(2), 'max ms': quantile(times, 1).toFixed(2) });
    }
  }
  console.table(rows);
} finally {
  await db.query(`DROP SCHEMA "${schema}" CASCADE`);
  await db.destroy();
}
