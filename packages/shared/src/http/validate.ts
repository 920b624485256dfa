import type { z } from 'zod';
import { zodIssuesToFieldErrors } from '../errors';
import { problems, type FieldError } from './problem';

/** Parses `input` or throws 400 VALIDATION_FAILED listing every problem; nothing has changed yet. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where?: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw problems.validation(zodIssuesToFieldErrors(result.error.issues, where));
  return result.data;
}

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain NUL characters';

/**
 * The common case, decided without the walk: nothing, a string, or an object of strings (path
 * parameters, most query strings), none of them (keys included) holding a NUL.
 */
function isCleanFlatStrings(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return !value.includes(NUL);
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== 'string' || item.includes(NUL) || key.includes(NUL)) return false;
  }
  return true;
}

/** No contract nests anywhere near this deep; anything deeper is an attack on whoever walks it. */
export const MAX_INPUT_DEPTH = 32;
const DEPTH_MESSAGE = `must not nest deeper than ${MAX_INPUT_DEPTH} levels`;

/**
 * What no schema should see of client input: nesting deeper than `MAX_INPUT_DEPTH` (objects and
 * arrays; the value itself is level 1), and U+0000 anywhere, which Postgres text and jsonb cannot
 * hold while zod's string schemas let it through. Walks with its own stack, so no depth of input
 * can overflow the call stack, and stops descending at the cap, so a deep body costs no more than
 * a shallow one.
 */
export function clientInputErrors(value: unknown, root: string[] = []): FieldError[] {
  if (isCleanFlatStrings(value)) return [];
  const errors: FieldError[] = [];
  const at = (path: string[]) => path.join('.') || '(root)';
  let tooDeep = false;
  const pending: Array<{ value: unknown; path: string[]; depth: number; nulKey?: boolean }> = [{ value, path: root, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path, depth } = next;
    if (next.nulKey) {
      errors.push({ path: at([...path.slice(0, -1), '(key)']), message: NUL_MESSAGE });
      continue;
    }
    if (typeof current === 'string') {
      if (current.includes(NUL)) errors.push({ path: at(path), message: NUL_MESSAGE });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth === MAX_INPUT_DEPTH) {
      // one error is enough to refuse; a wide body of deep branches would otherwise list them all
      if (!tooDeep) errors.push({ path: at(path), message: DEPTH_MESSAGE });
      tooDeep = true;
      continue;
    }
    const entries = Array.isArray(current) ? current.map((v, i) => [String(i), v] as const) : Object.entries(current);
    // pushed last to first so the errors come out in document order
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, child] = entries[i]!;
      pending.push({ value: child, path: [...path, key], depth: depth + 1, nulKey: key.includes(NUL) });
    }
  }
  return errors;
}
