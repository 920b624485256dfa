import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { problems, sendProblem } from '@market/shared/http';
import { type Logger } from '@market/shared/logging';

export type ProxyMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * One keep-alive proxy per service. A refused connection means the service is down (503); any
 * other failure of the upstream exchange is a bad gateway (502). Both are problem+json.
 */
export function createServiceProxy(target: string, timeoutMs: number, log: Logger): ProxyMiddleware {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    agent,
    changeOrigin: false,
    xfwd: false,
    proxyTimeout: timeoutMs,
    on: { error: upstreamError(target, log) },
  });
}

/**
 * The proxy of routes whose contract declares a stream (Server-Sent Events): no timeout, since
 * the answer never ends by itself, and its own connections, so long-lived streams never take the
 * keep-alive sockets of ordinary requests. Bytes are piped as they come (nothing here buffers or
 * compresses); a client that goes away aborts the upstream request (tested).
 */
export function createStreamProxy(target: string, log: Logger): ProxyMiddleware {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    agent: new http.Agent({ keepAlive: false }),
    changeOrigin: false,
    xfwd: false,
    on: { error: upstreamError(target, log) },
  });
}

function upstreamError(target: string, log: Logger) {
  return (err: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
    // The client left first (a closed stream): nothing failed upstream.
    if (res.destroyed) return;
    const code = (err as NodeJS.ErrnoException).code;
    const path = (req.url ?? '').split('?')[0] ?? '';
    log.warn({ target, code, path }, 'upstream unavailable');
    if (!('setHeader' in res) || res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, problems.upstreamUnavailable(code === 'ECONNREFUSED' ? 503 : 502), path);
  };
}
