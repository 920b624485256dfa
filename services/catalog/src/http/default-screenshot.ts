import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import { isNotModified } from '@market/shared/http';

// The same relative path from src/http (jest, tsx) and from dist/http (the build).
const ASSET = path.resolve(__dirname, '..', '..', 'assets', 'default-upload-screenshot.png');

export interface StaticImage {
  bytes: Buffer;
  etag: string;
}

export function loadDefaultScreenshot(): StaticImage {
  const bytes = readFileSync(ASSET);
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('hex')}"` };
}

/** The image with its validators; a client holding it gets 304 (Node's response API: no Express `send` on this path). */
export function sendStaticImage(image: StaticImage, req: Request, res: Response) {
  res.setHeader('Content-Type', 'image/png');
  res.setHeader('Cache-Control', 'public, max-age=86400');
  res.setHeader('ETag', image.etag);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.statusCode = 200;
  if (isNotModified(req, res)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Length', image.bytes.length);
  res.end(image.bytes);
}
