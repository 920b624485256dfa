import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parse as parseUrl } from 'node:url';
import { createProxyMiddleware, type Options, type Plugin } from 'http-proxy-middleware';
import { problems, sendProblem } from '@market/shared/http';
import { type Logger } from '@market/shared/logging';

export type ProxyMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

const ON_REFUSED = Symbol('on refused');
type Retryable = IncomingMessage & { [ON_REFUSED]?: () => boolean };

/**
 * What to do when the replica a request was sent to refuses the connection: `retry` answers true
 * when it sent the request elsewhere (then no 503 is answered here), false to let the 503 go out.
 */
export function onRefused(req: IncomingMessage, retry: () => boolean): void {
  (req as Retryable)[ON_REFUSED] = retry;
}

/**
 * What every proxy of the gateway shares (ADR 0025):
 * - `ejectPlugins` with the one plugin below instead of http-proxy-middleware's defaults: its
 *   logger plugin built a URL for every response only to hand it to a logger that writes nothing
 *   (a tenth of the gateway's CPU in a profile of the cheap endpoint), its error-response plugin is
 *   replaced by our problem answers, and its debug plugin's listeners are kept where they matter;
 * - the target parsed once, not by http-proxy on every request;
 * - `toProxy`: the upstream path is `req.url` as received, which is exactly what the route table
 *   matched (a contract route's path starts with `/api/`), instead of a `url.parse` of it on every
 *   request (which would also turn `\` into `/` in the path: the service saw another path than the
 *   one the gateway routed).
 */
function baseOptions(target: string, log: Logger): Options<IncomingMessage, ServerResponse> {
  const url = new URL(target);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    target: { protocol: url.protocol, host: hostname, hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) },
    changeOrigin: false,
    xfwd: false,
    toProxy: true,
    ejectPlugins: true,
    plugins: [gatewayPlugin(target, log)],
  };
}

/**
 * Node 24 inspects the caller's stack on every `url.parse()` made from a package in node_modules
 * until one made from elsewhere has shown its one-time deprecation warning (DEP0169).
 * http-proxy-middleware's path filter calls it on every request, so the gateway makes that one
 * call itself, with the warning muted (the gateway's own code does not use `url.parse`): 4% of its
 * CPU per request on Node 24 (ADR 0025). Node 20 neither inspects nor warns.
 */
function settleUrlParseDeprecation() {
  const muted = process.noDeprecation;
  process.noDeprecation = true;
  try {
    parseUrl('/');
  } finally {
    process.noDeprecation = muted;
  }
}

/**
 * One keep-alive proxy per service. A refused connection means the service is down (503), unless
 * the request could go to another replica (`onRefused`); any other failure of the upstream
 * exchange is a bad gateway (502). Both are problem+json.
 */
export function createServiceProxy(target: string, timeoutMs: number, log: Logger): ProxyMiddleware {
  settleUrlParseDeprecation();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });
  return createProxyMiddleware<IncomingMessage, ServerResponse>({ ...baseOptions(target, log), agent, proxyTimeout: timeoutMs });
}

/**
 * The proxy of routes whose contract declares a stream (Server-Sent Events): no timeout, since
 * the answer never ends by itself, and its own connections, so long-lived streams never take the
 * keep-alive sockets of ordinary requests. Bytes are piped as they come (nothing here buffers or
 * compresses); a client that goes away aborts the upstream request (tested).
 */
export function createStreamProxy(target: string, log: Logger): ProxyMiddleware {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({ ...baseOptions(target, log), agent: new http.Agent({ keepAlive: false }) });
}

const ignore = () => undefined;
const UPSTREAM = Symbol('upstream response');
const ON_ANSWER = Symbol('on upstream answer');
type Watched = ServerResponse & { [ON_ANSWER]?: (upstream: IncomingMessage) => void };

/** Shows `watch` the service's answer to this request as it arrives, before it is piped to the client. */
export function onUpstreamAnswer(res: ServerResponse, watch: (upstream: IncomingMessage) => void): void {
  (res as Watched)[ON_ANSWER] = watch;
}

/** An answer the client stopped waiting for is not read on: its upstream response is dropped. */
function dropUpstreamOfClosedAnswer(this: ServerResponse & { [UPSTREAM]?: IncomingMessage }) {
  if (!this.writableEnded) this[UPSTREAM]?.destroy();
}

function gatewayPlugin(target: string, log: Logger): Plugin<IncomingMessage, ServerResponse> {
  return (proxyServer) => {
    proxyServer.on('error', upstreamError(target, log));
    proxyServer.on('proxyRes', (proxyRes, _req, res: ServerResponse & { [UPSTREAM]?: IncomingMessage }) => {
      // As http-proxy-middleware's debug plugin does: a client gone mid-answer (a closed stream)
      // destroys the upstream response, and a write the pipe makes to an answer already ended by a
      // problem is not an uncaught error.
      res[UPSTREAM] = proxyRes;
      res.on('close', dropUpstreamOfClosedAnswer);
      res.on('error', ignore);
      (res as Watched)[ON_ANSWER]?.(proxyRes);
    });
  };
}

function upstreamError(target: string, log: Logger) {
  return (err: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
    // The client left first (a closed stream): nothing failed upstream.
    if (res.destroyed) return;
    const code = (err as NodeJS.ErrnoException).code;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    log.warn({ target, code, path }, 'upstream unavailable');
    if (code === 'ECONNREFUSED' && (req as Retryable)[ON_REFUSED]?.()) return;
    if (!('setHeader' in res) || res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, problems.upstreamUnavailable(code === 'ECONNREFUSED' ? 503 : 502), path);
  };
}
