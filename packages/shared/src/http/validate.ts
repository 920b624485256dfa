import type { z } from 'zod';
import { problems, type FieldError } from './problem';

export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], prefix?: string): FieldError[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const full = [prefix, path].filter(Boolean).join('.');
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
    return { path: full || '(root)', message };
  });
}

/** Parses `input` or throws 400 VALIDATION_FAILED listing every problem; nothing has changed yet. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where?: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw problems.validation(zodIssuesToFieldErrors(result.error.issues, where));
  return result.data;
}

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain NUL characters';

/**
 * Postgres text and jsonb cannot hold U+0000, and zod's string schemas let it through; input
 * carrying it anywhere is the client's mistake, refused before it can reach SQL as a 500.
 */
export function nulCharacterErrors(value: unknown, path: string[] = []): FieldError[] {
  if (typeof value === 'string') return value.includes(NUL) ? [{ path: path.join('.') || '(root)', message: NUL_MESSAGE }] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => nulCharacterErrors(v, [...path, String(i)]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      k.includes(NUL) ? [{ path: [...path, '(key)'].join('.'), message: NUL_MESSAGE }] : nulCharacterErrors(v, [...path, k]),
    );
  }
  return [];
}
