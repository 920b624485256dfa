#!/usr/bin/env node
// Prints every JavaScript chunk of the console's build with its gzipped size and whether the login
// page loads it first (the entry and its static imports) or a page loads it lazily, then the login
// page's first-load total; fails above the budget. The build runs it, and so does `npm run bench:console`.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 500;
const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const manifestFile = path.join(dist, '.vite/manifest.json');
if (!existsSync(manifestFile)) {
  console.error(`no build in ${dist}: run \`npx turbo run build --filter=@market/console\` first`);
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const gzipKb = (file) => gzipSync(readFileSync(path.join(dist, file))).length / 1024;

const firstLoad = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || firstLoad.has(chunk.file)) return;
  firstLoad.add(chunk.file);
  for (const dep of chunk.imports ?? []) visit(dep);
};
visit(Object.keys(manifest).find((key) => manifest[key].isEntry));

const rows = Object.values(manifest)
  .filter((chunk) => chunk.file.endsWith('.js'))
  .map((chunk) => ({
    chunk: chunk.file,
    loads: firstLoad.has(chunk.file) ? 'first' : 'lazy',
    'raw KB': +(readFileSync(path.join(dist, chunk.file)).length / 1024).toFixed(1),
    'gzip KB': +gzipKb(chunk.file).toFixed(1),
  }))
  .sort((a, b) => a.loads.localeCompare(b.loads) || b['gzip KB'] - a['gzip KB']);
console.table(rows);

const total = [...firstLoad].reduce((sum, file) => sum + gzipKb(file), 0);
const lazy = rows.filter((row) => row.loads === 'lazy');
console.log(`login page first load: ${firstLoad.size} chunk(s), ${total.toFixed(1)} KB of gzipped JavaScript (budget ${BUDGET_KB} KB)`);
console.log(`loaded lazily by the other pages: ${lazy.length} chunk(s), largest ${Math.max(0, ...lazy.map((row) => row['gzip KB']))} KB gzipped`);
if (total > BUDGET_KB) {
  console.error('over the budget');
  process.exit(1);
}
