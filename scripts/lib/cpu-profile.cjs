// Bench-only preload (`BENCH_NODE_ARGS="--require ./scripts/lib/cpu-profile.cjs"`, with
// BENCH_PROFILE_DIR set): profiles the process from its start and writes
// `<BENCH_PROFILE_DIR>/<service>.<pid>.cpuprofile` when SIGTERM arrives, before the process's own
// shutdown. `--cpu-prof` writes only once the process has exited cleanly, which a stack stopped
// with the bench (and any process with traces on, whose exit waits on the exporter) may never do.
// An in-process inspector session answers synchronously, so the file is written in the handler.
'use strict';
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.prependOnceListener('SIGTERM', () => {
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      // services/<name>/dist/main.js
      const service = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'process')));
      writeFileSync(path.join(dir, `${service}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
