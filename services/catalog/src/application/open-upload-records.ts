import { REFUSED_DELIVERY_BYTES_KEPT } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { sealedAt } from '@market/shared/crypto';
import { recordAudit } from '@market/shared/events';
import { v7 as uuidv7 } from 'uuid';
import {
  maskedText,
  redactUpload,
  uploaderNameOf,
  uploadItems,
  uploadTimeOf,
  type BodyReading,
  type DeliveredBody,
} from '../domain/open-upload';
import { insertOpenUpload, OPEN_UPLOAD_RAW_SEALED, type OpenUploadRecord } from '../persistence/open-upload-repository';
import type { CatalogDeps } from './deps';
import type { RefusalAnswer } from './ports';

/** Characters of a body that is not JSON shown (masked) to operators. */
const MASKED_TEXT_CHARS = 4096;

export interface DeliveryFacts extends DeliveredBody {
  receivedAt: Date;
  ip: string | null;
  requestId: string | null;
}

type Decided = Pick<OpenUploadRecord, 'outcome' | 'status'> & Partial<OpenUploadRecord>;

/**
 * The record of a delivery: what came, from where, and the readable copy an operator gets (the
 * JSON redacted, or the masked first characters of a body that is not JSON). The bytes are kept
 * sealed, all of them when the delivery was converted or matched no one, only the first ones of a
 * delivery refused outright, which anyone can send.
 */
export function deliveryRecord(deps: Pick<CatalogDeps, 'secrets'>, facts: DeliveryFacts, reading: BodyReading, decided: Decided): OpenUploadRecord {
  const keepAll = decided.outcome !== 'refused';
  const kept = keepAll ? facts.bytes : facts.bytes.subarray(0, REFUSED_DELIVERY_BYTES_KEPT);
  const json = reading.json.ok && facts.fault !== 'too_large' ? reading.json.value : undefined;
  const data = json !== null && typeof json === 'object' && 'data' in json ? json.data : undefined;
  const id = uuidv7();
  return {
    id,
    received_at: facts.receivedAt,
    ip: facts.ip,
    request_id: facts.requestId,
    uploader_name: uploaderNameOf(json, reading.text),
    upload_time: uploadTimeOf(json),
    matched_admin_id: null,
    publisher_user_id: null,
    code: null,
    reason: null,
    errors: [],
    item_count: data === undefined ? 0 : uploadItems(data).length,
    byte_count: facts.byteCount,
    bytes_truncated: kept.length < facts.byteCount,
    raw_sealed: deps.secrets.seal(kept.toString('utf8'), sealedAt(OPEN_UPLOAD_RAW_SEALED, id)),
    redacted: json === undefined ? null : redactUpload(json),
    redacted_text: json === undefined ? maskedText(reading.text, MASKED_TEXT_CHARS) : null,
    result: null,
    ...decided,
  };
}

/** Records a delivery refused with `answer`, what the uploader was told. */
export async function recordRefusal(
  deps: CatalogDeps,
  facts: DeliveryFacts,
  reading: BodyReading,
  answer: RefusalAnswer,
  extra: { identity?: Identity; matchedAdminId?: string | null; tokenSent?: boolean } = {},
) {
  const record = deliveryRecord(deps, facts, reading, {
    outcome: answer.code === 'UPLOADER_NOT_MATCHED' ? 'unmatched' : 'refused',
    status: answer.status,
    code: answer.code,
    reason: answer.reason,
    errors: answer.errors,
    matched_admin_id: extra.matchedAdminId ?? null,
  });
  await deps.db.transaction(async (tx) => {
    await insertOpenUpload(tx, record);
    // a refused upload token is audited: someone is trying the door
    if (answer.code === 'UNAUTHENTICATED' && extra.identity) {
      await recordAudit(deps.events, tx, extra.identity, {
        action: 'open_upload.token_refused',
        biz_type: 'open_upload',
        biz_id: record.id,
        detail: { uploader_name: record.uploader_name, token_sent: extra.tokenSent ?? false },
        result: 'failure',
      });
    }
  });
  return record;
}
