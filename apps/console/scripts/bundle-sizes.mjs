#!/usr/bin/env node
// Prints every JavaScript chunk of the console's build with its gzipped size, and the JavaScript
// the login page loads first (the entry and its static imports); fails the build above the budget.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 500;
const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8'));
const gzipKb = (file) => gzipSync(readFileSync(path.join(dist, file))).length / 1024;

const rows = Object.values(manifest)
  .filter((chunk) => chunk.file.endsWith('.js'))
  .map((chunk) => ({ chunk: chunk.file, 'raw KB': +(readFileSync(path.join(dist, chunk.file)).length / 1024).toFixed(1), 'gzip KB': +gzipKb(chunk.file).toFixed(1) }))
  .sort((a, b) => b['gzip KB'] - a['gzip KB']);
console.table(rows);

const firstLoad = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || firstLoad.has(chunk.file)) return;
  firstLoad.add(chunk.file);
  for (const dep of chunk.imports ?? []) visit(dep);
};
visit(Object.keys(manifest).find((key) => manifest[key].isEntry));
const total = [...firstLoad].reduce((sum, file) => sum + gzipKb(file), 0);
console.log(`login page first load: ${firstLoad.size} chunk(s), ${total.toFixed(1)} KB of gzipped JavaScript (budget ${BUDGET_KB} KB); every other page loads lazily`);
if (total > BUDGET_KB) {
  console.error('over the budget');
  process.exit(1);
}
