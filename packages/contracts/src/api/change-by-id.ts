import { IdParams } from '../common';
import type { z } from '../zod';
import type { ErrorStatus } from './route';

/**
 * The request and answers of a change to one resource named by the path's `{id}`: the body it
 * takes, the resource answered as it now is, and what such a change refuses: 400 (the body), 401
 * and 403 (the token), 404 (no such resource, or none the caller may see), 409 (its state).
 */
export function changeById<B extends z.ZodType, R extends z.ZodType>(body: B, answer: { description: string; schema: R }) {
  return { params: IdParams, body, success: { status: 200 as const, ...answer }, errors: [400, 401, 403, 404, 409] satisfies ErrorStatus[] };
}
