import {
  OpenUploadResult,
  type adminListOpenUploads,
  type OpenUploadRecord,
  type OpenUploadRecordSummary,
  type RouteQuery,
  type z,
} from '@market/contracts';
import { OpenUploadNotFound } from '../domain/errors';
import { findOpenUpload, queryOpenUploads, type OpenUploadSummaryRow } from '../persistence/open-upload-repository';
import type { CatalogDeps } from './deps';

type Summary = z.infer<typeof OpenUploadRecordSummary>;

function toSummary(row: OpenUploadSummaryRow): Summary {
  const result = OpenUploadResult.safeParse(row.result);
  return {
    id: row.id,
    received_at: row.received_at.toISOString(),
    ip: row.ip,
    request_id: row.request_id,
    uploader_name: row.uploader_name,
    upload_time: row.upload_time,
    outcome: row.outcome,
    status: row.status,
    code: row.code,
    reason: row.reason,
    item_count: row.item_count,
    listing_count: result.success ? result.data.listings.length : 0,
    // bigint: a declared length may exceed what an integer column holds
    byte_count: Number(row.byte_count),
    bytes_truncated: row.bytes_truncated,
    matched_admin_id: row.matched_admin_id,
  };
}

/** The back office traces an uploader's deliveries: newest first, by uploader, outcome and time. */
export async function openUploadRecords(deps: CatalogDeps, query: RouteQuery<typeof adminListOpenUploads>) {
  const page = await queryOpenUploads(deps.db, {
    uploaderName: query.uploader_name,
    outcome: query.outcome,
    receivedFrom: query.received_from === undefined ? undefined : new Date(query.received_from),
    receivedTo: query.received_to === undefined ? undefined : new Date(query.received_to),
    cursor: query.cursor,
    limit: query.limit,
  });
  return { items: page.items.map(toSummary), next_cursor: page.next_cursor };
}

/** One delivery with its redacted copy; the sealed bytes are not read. */
export async function openUploadRecord(deps: CatalogDeps, id: string): Promise<z.infer<typeof OpenUploadRecord>> {
  const row = await findOpenUpload(deps.db, id);
  if (!row) throw new OpenUploadNotFound();
  const result = OpenUploadResult.safeParse(row.result);
  return {
    ...toSummary(row),
    publisher_user_id: row.publisher_user_id,
    redacted_body: row.redacted,
    redacted_text: row.redacted_text,
    errors: row.errors,
    result: result.success ? result.data : null,
  };
}
