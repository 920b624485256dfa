import { readFileSync } from 'node:fs';
import { addressesOf } from './addresses';
import { z } from 'zod';
import { DEV_KEYRING } from '../crypto/secret-box';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from '../redis';
import { type ServiceName, DEFAULT_PORTS, SERVICE_NAMES } from '@market/contracts';

/**
 * A secret with a development default. Outside development (production, `test`, any other value
 * and an unset NODE_ENV) the default is refused, so a deployment that forgot to set it fails at
 * start instead of running with a published key.
 */
export function secret(devDefault: string, minLength = 32) {
  return z.string().min(minLength).default(devDefault).describe(`secret:${devDefault}`);
}

/**
 * The keys of internal identity assertions (ADR 0053; read by `internalKeysOf`, which requires
 * them outside development).
 */
export const internalKeyEnvShape = {
  /** this process's Ed25519 private key, as a JWK (JSON) */
  INTERNAL_SIGNING_KEY: z.string().optional(),
  /** its key id, `<issuer>:<version>` (the newest of the issuer's keys; the one it signs with) */
  INTERNAL_SIGNING_KEY_ID: z.string().optional(),
  /** every issuer's public keys, a JWKS (JSON `{"keys":[...]}`), each with its `kid` */
  INTERNAL_PUBLIC_KEYS: z.string().optional(),
};

export const baseEnvShape = {
  /**
   * Only `development`, said by name, turns on the development behaviours (published secrets, codes
   * and captcha answers in responses, sandbox providers); any other value, and none, runs as production.
   */
  NODE_ENV: z.string().default('production'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** append logs to this file instead of stdout */
  LOG_FILE: z.string().optional(),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/market'),
  AMQP_URL: z.string().default('amqp://guest:guest@127.0.0.1:5672'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** how long a Redis command may wait for its answer before the request fails with a 503 */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(DEFAULT_REDIS_COMMAND_TIMEOUT_MS),
  EVENTS_EXCHANGE: z.string().default('marketplace.events'),
  /** prefix of every Redis key this deployment writes (lets environments share one Redis) */
  REDIS_KEY_PREFIX: z.string().default(''),
  ...internalKeyEnvShape,
};

/** Signing keys of access tokens: identity and admin sign, the gateway verifies. */
export const tokenSecretShape = {
  USER_TOKEN_SECRET: secret('dev-only-user-token-secret-000000000000000000'),
  ADMIN_TOKEN_SECRET: secret('dev-only-admin-token-secret-00000000000000000'),
};

/** The AES-256-GCM keyring for secrets at rest (`kid:base64key,...`, first is current): see SecretBox. */
export const dataEncryptionShape = {
  DATA_ENCRYPTION_KEYS: secret(DEV_KEYRING),
};

/** one URL, or several replicas' URLs separated by commas */
const serviceUrl = (name: ServiceName) =>
  z
    .string()
    .refine((value) => addressesOf(value).length > 0 && addressesOf(value).every((url) => z.string().url().safeParse(url).success), {
      message: 'one URL or several, comma-separated',
    })
    .default(`http://127.0.0.1:${DEFAULT_PORTS[name]}`);

/** Where each service listens, for the gateway and for service-to-service calls: `IDENTITY_URL` and so on. */
export const serviceUrlShape = Object.fromEntries(SERVICE_NAMES.map((name) => [`${name.toUpperCase()}_URL`, serviceUrl(name)])) as Record<
  `${Uppercase<ServiceName>}_URL`,
  ReturnType<typeof serviceUrl>
>;

export function serviceUrls(config: Record<keyof typeof serviceUrlShape, string>): Record<ServiceName, string> {
  return Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, config[`${name.toUpperCase()}_URL` as keyof typeof serviceUrlShape]]),
  ) as Record<ServiceName, string>;
}

/** Every service's addresses (several when `<NAME>_URL` lists replicas). */
export function serviceAddresses(config: Record<keyof typeof serviceUrlShape, string>): Record<ServiceName, string[]> {
  const urls = serviceUrls(config);
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, addressesOf(urls[name])])) as Record<ServiceName, string[]>;
}

export class ConfigError extends Error {}

/** Whether the development behaviours are on: only when NODE_ENV says `development` by name. */
export function inDevelopment(config: { NODE_ENV?: string }): boolean {
  return config.NODE_ENV === 'development';
}

/**
 * The environment with every `X_FILE` read into `X` for the variables of the shape: secrets arrive
 * as mounted files (a Kubernetes Secret volume, a Compose secret) rather than in the environment,
 * where every child process and crash dump would carry them. One trailing newline is trimmed
 * (editors and `echo` add it), an empty file counts as unset; setting both `X` and `X_FILE` is
 * refused, since either could be the stale one.
 */
function withFiles(keys: string[], env: NodeJS.ProcessEnv): { values: Record<string, string | undefined>; problems: string[] } {
  const values: Record<string, string | undefined> = {};
  const problems: string[] = [];
  for (const key of keys) {
    const direct = env[key] === '' ? undefined : env[key];
    const file = env[`${key}_FILE`] === '' ? undefined : env[`${key}_FILE`];
    if (file === undefined) {
      values[key] = direct;
    } else if (direct !== undefined) {
      problems.push(`  ${key}: set either ${key} or ${key}_FILE, not both`);
    } else {
      try {
        // an empty file is an unset variable, as an empty one is (a Secret's key a deployment does not use)
        values[key] = readFileSync(file, 'utf8').replace(/\r?\n$/, '') || undefined;
      } catch (err) {
        problems.push(`  ${key}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      }
    }
  }
  return { values, problems };
}

/**
 * Parses the environment once at start (any variable `X` may be given as a file in `X_FILE`).
 * Fails fast with every problem listed, never echoing a value (it may be a secret).
 */
export function loadConfig<S extends z.ZodRawShape>(shape: S, env: NodeJS.ProcessEnv = process.env) {
  const schema = z.object(shape);
  const { values: input, problems } = withFiles(Object.keys(shape), env);
  const parsed = schema.safeParse(input);
  if (problems.length > 0 || !parsed.success) {
    const lines = [...problems, ...(parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`))];
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data as z.infer<typeof schema>;
  const mode = (config as { NODE_ENV?: string }).NODE_ENV;
  // NODE_ENV defaults to production, so only a shape that does not read it (a part of a service's
  // configuration checked on its own) skips this
  if (mode !== undefined && mode !== 'development') {
    const defaulted = Object.entries(shape)
      .filter(([key, field]) => {
        const description = (field as z.ZodType).description;
        return description?.startsWith('secret:') && (config as Record<string, unknown>)[key] === description.slice(7);
      })
      .map(([key]) => key);
    if (defaulted.length > 0) {
      throw new ConfigError(
        `NODE_ENV is ${mode}, not development: these secrets must be set explicitly: ${defaulted.join(', ')} (each as X or as a file in X_FILE)`,
      );
    }
  }
  return config;
}
