// Preloaded into every process by `npm run bench:orders` (`--require`): counts the SQL statements
// the process sends, each one a round trip to Postgres, grouped by their text, and the HTTP requests
// it serves and sends (Node's diagnostics channels: its http server and client, and undici, under
// `fetch` and the services' internal client). On SIGUSR2 it writes the counts so far to
// `<BENCH_STATEMENTS_DIR>/<pid>.json`; the bench reads them around a phase and prints them per order
// per service. Bench-only: no service loads it otherwise.
'use strict';
const { writeFileSync, renameSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_STATEMENTS_DIR;
if (dir) {
  // the pg the services use: the one the repository root resolves
  const pg = require(require.resolve('pg', { paths: [process.cwd()] }));
  const counts = new Map();
  const requests = { served: 0, sent: 0 };
  const diagnostics = require('node:diagnostics_channel');
  diagnostics.subscribe('http.server.request.start', () => requests.served++);
  diagnostics.subscribe('http.client.request.start', () => requests.sent++);
  diagnostics.subscribe('undici:request:create', () => requests.sent++);
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      const key = text.replace(/\s+/g, ' ').trim().slice(0, 120);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return original.call(this, config, ...rest);
  };
  process.on('SIGUSR2', () => {
    const file = path.join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify({ statements: Object.fromEntries(counts), requests }));
    renameSync(`${file}.tmp`, file);
  });
}
