import pino, { type Logger } from 'pino';
import { databaseErrorForLog } from '../db/errors';
import { currentRequestId } from '../context/request-context';
import { currentTraceId } from '../tracing';

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
  const log = pino(
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
        const traceId = currentTraceId();
        return { ...(requestId ? { request_id: requestId } : {}), ...(traceId ? { trace_id: traceId } : {}) };
      },
    },
    destination,
  );
  destinations.set(log, destination);
  return log;
}

/** Where each logger made by `createLogger` writes, for the access line written without pino. */
const destinations = new WeakMap<Logger, pino.DestinationStream>();

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

export type AccessLevel = 'debug' | 'info' | 'warn' | 'error';

/** The one line every request writes: nothing in it can hold a secret (no query, no headers, no body). */
export interface AccessLine {
  request_id: string;
  method: string;
  /** the path without its query */
  path: string;
  status: number;
  ms: number;
  /** the gateway: which service the request went to (not `service`, which names the process writing the line) */
  upstream?: string;
  /** the request's trace, when tracing is on (read when the request began: its span is active there) */
  trace_id?: string;
}

export type AccessLog = (level: AccessLevel, line: AccessLine) => void;

/**
 * The writer of the access line. The line is the one pino would write for
 * `log[level]({ request_id, method, path, status, ms, upstream }, 'request')` (same keys, order and
 * time format; the request id comes first as the mixin would put it), composed here: pino's
 * generic path (mixin, merge, per-key serializer lookup, redaction of the parent's paths) cost
 * a busy gateway more than the rest of the request's bookkeeping. None of these fields can hold a
 * secret, so no redaction applies. A logger not made by `createLogger` gets the pino call itself.
 */
export function accessLogger(log: Logger): AccessLog {
  const destination = destinations.get(log);
  if (!destination) {
    const child = log.child({}, { redact: [] });
    return (level, { request_id, ...rest }) => child[level]({ request_id, ...rest }, 'request');
  }
  const bindings = Object.entries(log.bindings())
    .map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join('');
  const prefixes: Record<AccessLevel, string> = {
    debug: '{"level":"debug","time":"',
    info: '{"level":"info","time":"',
    warn: '{"level":"warn","time":"',
    error: '{"level":"error","time":"',
  };
  let clockMs = 0;
  let clockText = '';
  return (level, line) => {
    if (!log.isLevelEnabled(level)) return;
    const now = Date.now();
    if (now !== clockMs) {
      clockMs = now;
      clockText = new Date(now).toISOString();
    }
    // Only the path (and, to be safe, the method) can hold characters JSON must escape.
    destination.write(
      `${prefixes[level]}${clockText}"${bindings},"request_id":${JSON.stringify(line.request_id)},"method":${JSON.stringify(line.method)},` +
        `"path":${JSON.stringify(line.path)},"status":${line.status},"ms":${Number.isFinite(line.ms) ? line.ms : null}` +
        `${line.upstream === undefined ? '' : `,"upstream":${JSON.stringify(line.upstream)}`}` +
        `${line.trace_id === undefined ? '' : `,"trace_id":${JSON.stringify(line.trace_id)}`},"msg":"request"}\n`,
    );
  };
}
