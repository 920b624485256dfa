import pino, { type Logger } from 'pino';
import { databaseErrorForLog } from '../db/errors';
import { currentRequestId } from '../http/request-context';

export type { Logger };

/** Field names whose values are never written to a log, at any depth we know of. */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'set-cookie',
  'x-internal-assertion',
  'x-upload-token',
  'paygate-signature',
  'password',
  'dev_code',
  'captcha_code',
  'dev_text',
  'token',
  'access_token',
  'refresh_token',
  'id_number',
  'real_name',
  'credentials',
  'secret',
];

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `req.headers["${k}"]`),
  // `code` alone is too common (error codes) to censor everywhere; in a body it is an SMS or captcha code
  'body.code',
  '*.body.code',
];

export function createLogger(service: string, level = 'info', file?: string): Logger {
  // Stdout is written asynchronously: lines logged while a write is in flight go out together in
  // the next one, instead of a blocking syscall per line. A file (tests read it back at once) stays synchronous.
  const destination = file
    ? pino.destination({ dest: file, sync: true, append: true, mkdir: true })
    : pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // A database error serialized whole would carry the query's parameters and row values.
      serializers: { err: (err: unknown) => databaseErrorForLog(err) ?? pino.stdSerializers.err(err as Error) },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { request_id: requestId } : {};
      },
    },
    destination,
  );
}
