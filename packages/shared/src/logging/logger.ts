import pino, { type Logger } from 'pino';
import { databaseErrorForLog } from '../db/errors';
import { currentRequestId } from '../context/request-context';

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
  // A file (tests read it back at once) is written synchronously. Stdout is written
  // asynchronously and in batches (ADR 0020): a write per line cost a busy gateway a sixth of its CPU.
  const destination = file ? pino.destination({ dest: file, sync: true, append: true, mkdir: true }) : batchedStdout();
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

/** How long a line may wait in the batch when traffic is too light to fill it. */
const FLUSH_INTERVAL_MS = 200;
const BATCH_BYTES = 8192;

/**
 * Stdout in batches of BATCH_BYTES, flushed at least every FLUSH_INTERVAL_MS. Pino flushes it on
 * exit, so a stopping or crashing process loses nothing; only a SIGKILL loses the last batch.
 */
function batchedStdout(): pino.DestinationStream {
  const out = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  let waiting = false;
  setInterval(() => {
    if (!waiting) return;
    waiting = false;
    out.flush();
  }, FLUSH_INTERVAL_MS).unref();
  return {
    write(line: string) {
      waiting = true;
      out.write(line);
    },
  };
}

/**
 * The logger for the one line every request writes (method, path without its query, status,
 * timing, ids): none of those fields can hold a secret, so that line skips the redaction pass,
 * which cost as much as the rest of writing it.
 */
export function accessLogger(log: Logger): Logger {
  return log.child({}, { redact: [] });
}
