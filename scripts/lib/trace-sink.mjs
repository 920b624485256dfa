import http from 'node:http';

/**
 * Tracing for a bench (`BENCH_TRACES=1`): every process traces as production does, exporting OTLP
 * over HTTP to a sink here that accepts the spans, counts the exports and drops them, so the
 * figures include what tracing costs at the sampling production runs (`OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG` pass through; parentbased_traceidratio at 0.01 unless set). Otherwise
 * tracing is off. `env`: the variables to start the processes with; `describe()`: one line for the
 * bench's output; `close()`: stops the sink.
 */
export async function benchTracing(processEnv) {
  if (processEnv.BENCH_TRACES !== '1') {
    return { env: { OTEL_TRACES_EXPORTER: 'none' }, describe: () => 'traces off', close: async () => undefined };
  }
  let exports = 0;
  const sink = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sampler = `${processEnv.OTEL_TRACES_SAMPLER ?? 'the default sampler'}${processEnv.OTEL_TRACES_SAMPLER_ARG ? ` ${processEnv.OTEL_TRACES_SAMPLER_ARG}` : ''}`;
  return {
    env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.address().port}` },
    describe: () => `traces on (${sampler}; ${exports} exports received)`,
    close: () => new Promise((resolve) => sink.close(() => resolve())),
  };
}
