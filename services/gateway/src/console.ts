import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { Problem, sendProblem } from '@market/shared/http';

/**
 * The back-office console's static build (apps/console, ADR 0036), served same-origin at /admin/.
 * The gateway only reads files: it never loads the console's build tools.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Ant Design writes its styles into <style> elements at run time
  "style-src 'self' 'unsafe-inline'",
  // the captcha is an SVG data URL
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const LONG_CACHE = 'public, max-age=31536000, immutable';

export function consoleRoutes(dir: string): Router {
  const router = express.Router();
  const index = path.join(dir, 'index.html');
  const secure: RequestHandler = (_req, res, next) => {
    res.setHeader('content-security-policy', CONSOLE_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'same-origin');
    next();
  };
  const built: RequestHandler = (req, res, next) => {
    if (existsSync(index)) return next();
    sendProblem(
      res,
      new Problem(503, 'CONSOLE_NOT_BUILT', 'the back-office console has not been built; run `npm run build` (or `npm start`)'),
      req.originalUrl,
    );
  };
  router.use(secure, built);
  // Hashed file names change with their content: cache them for good.
  router.use('/assets', express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }));
  router.use(express.static(dir, { index: false, setHeaders: (res) => res.setHeader('cache-control', LONG_CACHE) }));
  // Every other path is a route of the single-page app: its index, never cached, so a new build shows at once.
  router.get('/{*path}', (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}

/** Where the console's build lies unless CONSOLE_DIR says otherwise: beside the gateway in the repository. */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '../../../apps/console/dist');
