import http from 'node:http';
import type { Request, Response, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { problems, sendProblem, type Logger } from '@market/shared';

/**
 * One keep-alive proxy per service. A refused connection means the service is down (503); any
 * other failure of the upstream exchange is a bad gateway (502). Both are problem+json.
 */
export function createServiceProxy(target: string, timeoutMs: number, log: Logger): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });
  return createProxyMiddleware<Request, Response>({
    target,
    agent,
    changeOrigin: false,
    xfwd: false,
    proxyTimeout: timeoutMs,
    on: {
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        log.warn({ target, code, path: (req as Request).path }, 'upstream unavailable');
        const response = res as Response;
        if (typeof response.status !== 'function' || response.headersSent) {
          (res as { destroy?: () => void }).destroy?.();
          return;
        }
        sendProblem(response, problems.upstreamUnavailable(code === 'ECONNREFUSED' ? 503 : 502), (req as Request).path);
      },
    },
  }) as unknown as RequestHandler;
}
