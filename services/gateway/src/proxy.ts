import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { problems, sendProblem, type Logger } from '@market/shared';

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
    on: {
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        const path = (req.url ?? '').split('?')[0] ?? '';
        log.warn({ target, code, path }, 'upstream unavailable');
        if (!('setHeader' in res) || res.headersSent) {
          res.destroy();
          return;
        }
        sendProblem(res, problems.upstreamUnavailable(code === 'ECONNREFUSED' ? 503 : 502), path);
      },
    },
  });
}
