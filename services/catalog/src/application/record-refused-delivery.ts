import { type InternalInput, type recordRefusedOpenUpload } from '@market/contracts';
import { readBody } from '../domain/open-upload';
import type { CatalogDeps } from './deps';
import { recordRefusal } from './open-upload-records';

/** A delivery the gateway refused before it reached us (ADR 0013), recorded from the first bytes it read. */
export async function recordRefusedDelivery(deps: CatalogDeps, report: InternalInput<typeof recordRefusedOpenUpload>['body']) {
  const bytes = Buffer.from(report.first_bytes, 'base64');
  const facts = {
    bytes,
    byteCount: report.byte_count,
    fault: 'too_large' as const,
    receivedAt: new Date(report.received_at),
    ip: report.ip,
    requestId: report.request_id,
  };
  const record = await recordRefusal(deps, facts, readBody(bytes), { status: report.status, code: report.code, reason: report.reason, errors: [] });
  return { id: record.id };
}
