import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/errors';
import { InvalidCursorError } from '../db/pagination';
import { RedisUnavailableError } from '../redis';
import { DomainError } from '../errors';
import { problemOfDomainError, type ErrorStatuses } from './error-statuses';
import { Problem, problems } from './problem';

/** Writes a problem with Node's own response API, so it serves Express and plain handlers alike. */
export function sendProblem(res: ServerResponse, problem: Problem, instance: string) {
  const requestId = res.getHeader('x-request-id');
  const body = JSON.stringify(problem.toBody(instance, typeof requestId === 'string' ? requestId : undefined));
  for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
  res.statusCode = problem.status;
  res.setHeader('content-type', 'application/problem+json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Maps domain errors through the service's table, and body-parser, multer and cursor failures
 * (client mistakes) to problems; anything else is ours.
 */
function toProblem(err: unknown, statuses: ErrorStatuses): Problem | null {
  if (err instanceof Problem) return err;
  if (err instanceof DomainError) return problemOfDomainError(err, statuses);
  if (err instanceof InvalidCursorError) return problems.validation([{ path: 'query.cursor', message: err.message }]);
  const e = err as { type?: string; status?: number; code?: string; statusCode?: number };
  if (e?.type === 'entity.parse.failed') return problems.malformedJson();
  if (e?.type === 'entity.too.large' || e?.code === 'LIMIT_FILE_SIZE') return problems.payloadTooLarge();
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new Problem(415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported content encoding or charset');
  }
  if (e?.type === 'request.aborted') return new Problem(400, 'REQUEST_ABORTED', 'the request body was cut short');
  if (typeof e?.code === 'string' && e.code.startsWith('LIMIT_')) {
    return new Problem(400, 'VALIDATION_FAILED', 'multipart request breaks a limit', {
      errors: [{ path: '(multipart)', message: e.code.toLowerCase() }],
    });
  }
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return problems.badRequest(status);
  }
  return null;
}

/** Which backing service failed to answer, when that is why the request failed. */
function unavailableDependency(err: unknown): 'postgres' | 'redis' | null {
  if (err instanceof RedisUnavailableError) return 'redis';
  if (isDatabaseUnavailable(err)) return 'postgres';
  return null;
}

/** `statuses`: the service's domain error codes and what each is answered with (the kit's own are known). */
export function errorHandler(log: Logger, statuses: ErrorStatuses = {}): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const instance = req.originalUrl.split('?')[0] ?? req.path;
    const dependency = unavailableDependency(err);
    // A dependency that is down or slow is temporary and not the client's fault: 503, try again.
    const problem = dependency ? problems.upstreamUnavailable(503) : toProblem(err, statuses);
    if (dependency) log.warn({ err, dependency }, 'dependency unavailable');
    if (problem) {
      if (!res.headersSent) sendProblem(res, problem, instance);
      return;
    }
    // The cause stays in our log (a database error without its values, see the logger); the
    // client gets a problem with no stack, SQL or host name.
    log.error({ err }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, new Problem(500, 'INTERNAL', 'something went wrong on our side'), instance);
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, problems.notFound(`no route for ${req.method} ${req.path}`), req.path);
};
