import { OpenUploadAccount, type z } from '@market/contracts';
import { zodIssuesToFieldErrors, type FieldError } from '@market/shared/errors';

export type OpenUploadItem = z.infer<typeof OpenUploadAccount>;
export type UploadOutcome = 'accepted' | 'partial' | 'rejected' | 'unmatched' | 'refused';

/** Why the bytes of a delivery could not be taken as its body. */
export type BodyFault = 'too_large' | 'unsupported_encoding' | 'undecodable' | 'aborted';

export interface DeliveredBody {
  /** the body, decompressed when it came compressed; only the first bytes when it was too large */
  bytes: Buffer;
  /** bytes received, as they came over the wire (or as declared, when the gateway refused the body) */
  byteCount: number;
  fault: BodyFault | null;
}

/** A delivery's bytes as text and, when they are JSON, as a value. */
export interface BodyReading {
  text: string;
  json: { ok: true; value: unknown } | { ok: false; position: number | null };
}

export function readBody(bytes: Buffer): BodyReading {
  const text = new TextDecoder().decode(bytes);
  try {
    return { text, json: { ok: true, value: JSON.parse(text) } };
  } catch (err) {
    // The parser's message quotes the input, which may be a password: only the position is kept.
    const position = /position (\d+)/.exec(String((err as Error).message));
    return { text, json: { ok: false, position: position ? Number(position[1]) : null } };
  }
}

/** Fields of an account object that are credentials: sealed at rest, never shown, redacted in the record. */
export const CREDENTIAL_FIELDS = ['account', 'password', 'extra'] as const;
export const REDACTED = '[redacted]';

const CREDENTIALS: ReadonlySet<string> = new Set(CREDENTIAL_FIELDS);
/** Account fields an operator may read in the record; anything else an item carries could be a secret. */
const SHOWN_ACCOUNT_FIELDS: ReadonlySet<string> = new Set(Object.keys(OpenUploadAccount.shape).filter((f) => !CREDENTIALS.has(f)));
const SHOWN_UPLOAD_FIELDS: ReadonlySet<string> = new Set(['uploadTime', 'uploaderName']);
const KNOWN_FIELD_NAMES: ReadonlySet<string> = new Set([...SHOWN_UPLOAD_FIELDS, 'data', ...Object.keys(OpenUploadAccount.shape)]);

/** `data` is one account object or an array of them; a single object is item 0. */
export function uploadItems(data: unknown): unknown[] {
  return Array.isArray(data) ? data : [data];
}

export type ItemCheck = { index: number; ok: true; item: OpenUploadItem } | { index: number; ok: false; errors: FieldError[] };

/**
 * Each item is judged on its own, so one bad account (or a value that is no object at all) does
 * not refuse the others. Fields the schema does not know are dropped here; the record keeps them.
 */
export function checkUploadItems(data: unknown): ItemCheck[] {
  return uploadItems(data).map((raw, index) => {
    const parsed = OpenUploadAccount.safeParse(raw);
    if (!parsed.success) return { index, ok: false as const, errors: zodIssuesToFieldErrors(parsed.error.issues) };
    return { index, ok: true as const, item: parsed.data };
  });
}

export function uploadOutcome(accepted: number, failed: number): UploadOutcome {
  if (failed === 0) return 'accepted';
  return accepted === 0 ? 'rejected' : 'partial';
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const shownValue = (value: unknown) => (value === null || typeof value !== 'object' ? value : REDACTED);

function redactItem(item: unknown): unknown {
  if (!isPlainObject(item)) return REDACTED;
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, SHOWN_ACCOUNT_FIELDS.has(k) ? shownValue(v) : REDACTED]));
}

/**
 * The delivered JSON as an operator may read it: the uploader fields and the known non-credential
 * account fields as sent; credentials, fields nobody documented and items that are no object
 * replaced, since any of them may hold a password. Field names stay, to show the uploader's format.
 */
export function redactUpload(body: unknown): unknown {
  if (!isPlainObject(body)) return REDACTED;
  return Object.fromEntries(
    Object.entries(body).map(([k, v]) => {
      if (SHOWN_UPLOAD_FIELDS.has(k)) return [k, shownValue(v)];
      if (k === 'data') return [k, Array.isArray(v) ? v.map(redactItem) : redactItem(v)];
      return [k, REDACTED];
    }),
  );
}

const STRING_LITERAL = /"(?:[^"\\]|\\.)*"?/y;
const MASKABLE = /[\p{L}\p{N}]/gu;
const SHOWN_VALUE_KEYS: ReadonlySet<string> = new Set([...SHOWN_UPLOAD_FIELDS, 'title', 'game', 'server']);

/**
 * The first `maxChars` of a body that is not valid JSON (or was cut short), for an operator to
 * find the syntax error: every letter and digit is masked with `*`, one for one so positions
 * stay, except known field names and the values of the uploader and title fields. Whatever the
 * uploader meant as a password stays masked however broken the JSON around it is.
 */
export function maskedText(text: string, maxChars: number): string {
  const head = text.slice(0, maxChars);
  let out = '';
  let shownKey: string | null = null;
  let i = 0;
  while (i < head.length) {
    if (head[i] !== '"') {
      const next = head.indexOf('"', i);
      const end = next === -1 ? head.length : next;
      const between = head.slice(i, end);
      out += between.replace(MASKABLE, '*');
      if (/[,{}[\]]/.test(between)) shownKey = null;
      i = end;
      continue;
    }
    STRING_LITERAL.lastIndex = i;
    const literal = STRING_LITERAL.exec(head)![0];
    const content = literal.slice(1, literal.endsWith('"') && literal.length > 1 ? -1 : undefined);
    const isKey = /^\s*:/.test(head.slice(i + literal.length));
    const show = isKey ? KNOWN_FIELD_NAMES.has(content) : shownKey !== null && SHOWN_VALUE_KEYS.has(shownKey);
    out += show ? literal : literal.replace(MASKABLE, '*');
    shownKey = isKey ? content : null;
    i += literal.length;
  }
  return out;
}

const UPLOADER_NAME_FIELD = /"uploaderName"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** The uploader's name, from the parsed body or, when it is not valid JSON, from its first bytes. */
export function uploaderNameOf(body: unknown, text: string): string | null {
  if (isPlainObject(body)) return typeof body.uploaderName === 'string' ? body.uploaderName.trim() : null;
  const match = UPLOADER_NAME_FIELD.exec(text);
  if (!match) return null;
  try {
    const name: unknown = JSON.parse(match[1]!);
    return typeof name === 'string' ? name.trim() : null;
  } catch {
    return null;
  }
}

export function uploadTimeOf(body: unknown): string | null {
  return isPlainObject(body) && typeof body.uploadTime === 'string' ? body.uploadTime : null;
}
