import { PermanentRefusal } from '@market/shared/errors';
import type { BodyFault } from '../domain/open-upload';

/**
 * How the open upload refuses a delivery whose bytes are no usable body. The open upload reads its
 * body raw, to record every delivery (ADR 0013), so these refusals are the use case's rather than the
 * kit's body parser's; they name what the uploader sent, not a rule of the catalog.
 */
export type DeliveryErrorCode = 'MALFORMED_JSON' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'MALFORMED_BODY' | 'REQUEST_ABORTED';

/** A delivery whose body is not JSON; only the parser's position is told, never the text around it. */
export class DeliveryNotJson extends PermanentRefusal<DeliveryErrorCode> {
  constructor(position: number | null) {
    super('MALFORMED_JSON', `request body is not valid JSON${position === null ? '' : ` (at position ${position})`}`);
  }
}

const UNREADABLE: Record<BodyFault, { code: DeliveryErrorCode; message: string }> = {
  too_large: { code: 'PAYLOAD_TOO_LARGE', message: 'request body is too large' },
  unsupported_encoding: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Encoding must be gzip, deflate, br or identity' },
  undecodable: { code: 'MALFORMED_BODY', message: 'the body could not be decompressed' },
  aborted: { code: 'REQUEST_ABORTED', message: 'the request body was cut short' },
};

/** A delivery whose bytes could not be taken as a body at all. */
export class UnreadableDelivery extends PermanentRefusal<DeliveryErrorCode> {
  constructor(readonly fault: BodyFault) {
    super(UNREADABLE[fault].code, UNREADABLE[fault].message);
  }
}
