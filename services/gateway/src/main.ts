import './telemetry';
import { createServer } from 'node:http';
import { createLogger } from '@market/shared/logging';
import { drainServer } from '@market/shared/http';
import { flushTraces } from '@market/shared/tracing';
import { connectRedis } from '@market/shared/redis';
import { createGateway } from './app';
import { loadGatewayConfig } from './config';
import { createGatewayMetrics } from './metrics';

async function main() {
  const config = loadGatewayConfig();
  const log = createLogger('gateway', config.LOG_LEVEL, config.LOG_FILE);
  const redis = await connectRedis(config.REDIS_URL, log, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  const metrics = createGatewayMetrics();
  const server = createServer(createGateway(config, redis, log, metrics));
  const metricsServer = metrics.server();
  metricsServer.on('error', (err) => {
    log.fatal({ err: { message: err.message } }, `gateway metrics cannot listen on port ${config.GATEWAY_METRICS_PORT} (GATEWAY_METRICS_PORT)`);
    process.exit(1);
  });
  metricsServer.listen(config.GATEWAY_METRICS_PORT, config.HOST, () =>
    log.info({ port: config.GATEWAY_METRICS_PORT }, 'gateway metrics listening'),
  );
  server.keepAliveTimeout = 65_000;
  server.listen(config.PORT, config.HOST, () => log.info({ port: config.PORT }, 'gateway listening'));
  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    metricsServer.close();
    // New connections are refused at once; requests already taken are answered (ADR 0038).
    drainServer(server, config.SHUTDOWN_GRACE_MS).then(() => {
      redis
        .quit()
        .catch(() => undefined)
        .then(flushTraces)
        .finally(() => process.exit(0));
    });
    // Open notification streams never end by themselves; clients reconnect elsewhere with Last-Event-ID.
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
