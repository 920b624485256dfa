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
