import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Request } from 'express';
import type { DeliveredBody } from '../domain/open-upload';

const DECOMPRESS: Record<string, (input: Buffer, opts: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * Reads the open upload's body itself (the route declares a raw body), so that a body too large,
 * cut short or not JSON is still in hand to be recorded. Beyond `limit` the rest is counted and
 * dropped, not refused mid-stream: the answer then reaches the uploader through the gateway.
 */
export async function readDeliveredBody(req: Request, limit: number): Promise<DeliveredBody> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let byteCount = 0;
  let aborted = false;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      byteCount += chunk.length;
      if (kept <= limit) {
        chunks.push(chunk);
        kept += chunk.length;
      }
    }
  } catch {
    aborted = true;
  }
  const received = Buffer.concat(chunks).subarray(0, limit);
  if (aborted) return { bytes: received, byteCount, fault: 'aborted' };
  if (byteCount > limit) return { bytes: received, byteCount, fault: 'too_large' };
  const encoding = (req.header('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return { bytes: received, byteCount, fault: null };
  const decompress = DECOMPRESS[encoding];
  if (!decompress) return { bytes: received, byteCount, fault: 'unsupported_encoding' };
  try {
    return { bytes: decompress(received, { maxOutputLength: limit }), byteCount, fault: null };
  } catch (err) {
    const tooLarge = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    return { bytes: received, byteCount, fault: tooLarge ? 'too_large' : 'undecodable' };
  }
}
