#!/usr/bin/env node
// The first step of `npm start`, before the build: are Postgres, RabbitMQ and Redis reachable?
// Names each one that is not, with the address tried and how to start it; exits 1 if any.
import { preflight } from './lib/preflight.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';

const settings = loadLaunchSettings(process.env);
const unreachable = await preflight(
  {
    DATABASE_ADMIN_URL: settings.adminUrl,
    AMQP_URL: settings.amqpAdminUrl,
    REDIS_URL: settings.redisAdminUrl,
  },
  settings.startCheckDeadlineMs,
);
for (const line of unreachable) process.stderr.write(`[start] ${line}\n`);
if (unreachable.length > 0) {
  process.stderr.write('[start] nothing was started\n');
  process.exit(1);
}
