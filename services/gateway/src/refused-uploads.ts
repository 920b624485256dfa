import type { IncomingMessage } from 'node:http';
import { recordRefusedOpenUpload, REFUSED_DELIVERY_BYTES_KEPT } from '@market/contracts';
import { InternalClient, type Problem } from '@market/shared/http';
import { type Logger } from '@market/shared/logging';

/** How long the gateway waits for a refused body's first bytes before answering without them. */
const FIRST_BYTES_WAIT_MS = 1000;

/**
 * Up to `max` bytes of a body already on its way, waiting at most `ms`; the rest is then read and
 * dropped (as Node does for a body nobody reads), so the answer reaches a client still sending.
 */
function firstBytes(req: IncomingMessage, max: number, ms: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('error', done);
      req.resume();
      resolve(Buffer.concat(chunks).subarray(0, max));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) done();
    };
    const timer = setTimeout(done, ms);
    req.on('data', onData).on('end', done).on('error', done);
  });
}

/**
 * The open upload records every delivery (ADR 0013), but a body over the limit by its declared
 * length is refused here and never reaches catalog: the gateway reads its first bytes and reports
 * the refusal to catalog, without making the uploader wait for that report.
 */
export function refusedUploadReporter(internal: InternalClient, log: Logger) {
  return async function reportRefusedUpload(req: IncomingMessage, refusal: Problem, facts: { ip: string | null; requestId: string }) {
    const receivedAt = new Date();
    const bytes = await firstBytes(req, REFUSED_DELIVERY_BYTES_KEPT, FIRST_BYTES_WAIT_MS);
    internal
      .call(recordRefusedOpenUpload, {
        body: {
          received_at: receivedAt.toISOString(),
          ip: facts.ip,
          request_id: facts.requestId,
          status: refusal.status,
          code: refusal.code,
          reason: refusal.message,
          byte_count: Number(req.headers['content-length'] ?? 0),
          first_bytes: bytes.toString('base64'),
        },
      })
      .catch((err: unknown) => log.warn({ err, request_id: facts.requestId }, 'a refused open upload could not be reported to catalog'));
  };
}
