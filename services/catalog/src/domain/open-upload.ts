import { OpenUploadAccount, zodIssuesToFieldErrors, type FieldError, type z } from '@market/shared';

export type OpenUploadItem = z.infer<typeof OpenUploadAccount>;
export type UploadOutcome = 'accepted' | 'partial' | 'rejected' | 'unmatched';

/** Fields of an account object that are credentials: sealed at rest, never shown, redacted in the record. */
export const CREDENTIAL_FIELDS = ['account', 'password', 'extra'] as const;
export const REDACTED = '[redacted]';

/** `data` is one account object or an array of them; a single object is item 0. */
export function uploadItems(data: unknown): unknown[] {
  return Array.isArray(data) ? data : [data];
}

export type ItemCheck = { index: number; ok: true; item: OpenUploadItem } | { index: number; ok: false; errors: FieldError[] };

/** Each item is judged on its own, so one bad account does not refuse the others. */
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

function redactItem(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const copy: Record<string, unknown> = { ...(item as Record<string, unknown>) };
  for (const field of CREDENTIAL_FIELDS) if (field in copy) copy[field] = REDACTED;
  return copy;
}

/** The upload as an operator may read it: every credential field replaced, everything else kept. */
export function redactUpload(body: { data?: unknown } & Record<string, unknown>): Record<string, unknown> {
  const data = Array.isArray(body.data) ? body.data.map(redactItem) : redactItem(body.data);
  return { ...body, data };
}
