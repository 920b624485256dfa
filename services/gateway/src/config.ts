import { DEFAULT_PORTS, z } from '@market/contracts';
import { DEFAULT_CONSOLE_DIR } from './console';
import { internalKeysOf } from '@market/shared/auth';
import { baseEnvShape, DEFAULT_REPLICA_EJECT_MS, inDevelopment, internalKeyEnvShape, loadConfig, serviceUrlShape, tokenSecretShape } from '@market/shared/config';

export const gatewayEnvShape = {
  NODE_ENV: baseEnvShape.NODE_ENV,
  LOG_LEVEL: baseEnvShape.LOG_LEVEL,
  LOG_FILE: baseEnvShape.LOG_FILE,
  REDIS_URL: baseEnvShape.REDIS_URL,
  REDIS_COMMAND_TIMEOUT_MS: baseEnvShape.REDIS_COMMAND_TIMEOUT_MS,
  REDIS_KEY_PREFIX: baseEnvShape.REDIS_KEY_PREFIX,
  ...internalKeyEnvShape,
  ...tokenSecretShape,
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.gateway),
  /** default: 127.0.0.1 in development (nothing else on the network reaches a gateway on published secrets), 0.0.0.0 otherwise */
  HOST: z.string().optional(),
  /** at a stop, how long idle keep-alive connections may stay open to take a last request */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(2000),
  /** Prometheus metrics (`GET /metrics`) on a port of their own, never on the public one; 0 picks a free port */
  GATEWAY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** behind a load balancer: take the client address from X-Forwarded-For (Express `trust proxy` value) */
  TRUST_PROXY: z.string().default('false'),
  ...serviceUrlShape,
  /** the back-office console's build (index.html and assets/), served at /admin/ */
  CONSOLE_DIR: z.string().default(DEFAULT_CONSOLE_DIR),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * how long the gateway answers repeats of an anonymous read on a route marked `edge.microCache`
   * itself (ADR 0068); 0 turns it off. A write through the gateway drops them at once, and so does
   * catalog's notice of any change it commits (an event it handles, another gateway replica); this
   * bound is only what a notice lost leaves, and while the notices cannot be heard nothing is kept.
   */
  GATEWAY_MICRO_CACHE_MS: z.coerce.number().int().min(0).max(5000).default(250),
  /** how long a replica that refused a connection is passed over before a request probes it again (ADR 0046) */
  GATEWAY_REPLICA_EJECT_MS: z.coerce.number().int().min(0).default(DEFAULT_REPLICA_EJECT_MS),
  /** requests per client address per minute over all routes, counted per gateway process */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  /** stricter per-address limits for routes that cost money or invite guessing, counted in Redis across replicas */
  RATE_LIMIT_SMS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  RATE_LIMIT_LOGIN_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  RATE_LIMIT_OPEN_UPLOAD_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  JSON_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(100 * 1024),
  OPEN_UPLOAD_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  UPLOAD_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024 + 64 * 1024),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(gatewayEnvShape, env);
  return {
    ...config,
    HOST: config.HOST ?? (inDevelopment(config) ? '127.0.0.1' : '0.0.0.0'),
    /** the gateway's key for the assertions it signs (ADR 0053) */
    internalKeys: internalKeysOf('gateway', config),
  };
}
