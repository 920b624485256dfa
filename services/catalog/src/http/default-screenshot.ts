import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import { matchesEtag } from '@market/shared/http';

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

export function sendStaticImage(image: StaticImage, req: Request, res: Response) {
  res.set({
    'Content-Type': 'image/png',
    'Cache-Control': 'public, max-age=86400',
    ETag: image.etag,
    'X-Content-Type-Options': 'nosniff',
  });
  if (matchesEtag(req.header('if-none-match'), image.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).send(image.bytes);
}
