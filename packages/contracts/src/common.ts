import { z } from './zod';

/** Largest amount of money any single field may hold: 10 million yuan in fen. */
export const MAX_MONEY_FEN = 1_000_000_000;

export const Timestamp = z.iso.datetime().openapi({ example: '2026-11-22T09:00:00.000Z' });
export const Id = z.string().openapi({ example: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b' });

/** Integer fen; money is never a float on the wire. */
export const Money = z
  .number()
  .int()
  .min(0)
  .max(MAX_MONEY_FEN)
  .openapi({ description: 'amount in fen (1/100 CNY)', example: 1500 });
export const PositiveMoney = Money.min(1);
export const SignedMoney = z
  .number()
  .int()
  .openapi({ description: 'signed amount in fen', example: -1500 });

/** Path `{id}`: any string; a malformed id is answered 404 by the service, never 400 or 500. */
export const IdParams = z.object({ id: z.string().max(100) }).strict();

/** `?limit=&cursor=`: limit 1..100, default 20; the cursor is opaque. */
export const PageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
  })
  .strict();

export function Page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

/** A query-string boolean: only `true` and `false` are accepted. */
export const QueryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Declaring this header is how a route opts in to `Idempotency-Key` (ADR 0010). */
export const IdempotencyHeaders = z.object({ 'idempotency-key': z.string().max(200).optional() });

export const ReasonBody = z.object({ reason: z.string().trim().min(1).max(500) }).strict();
export const EmptyBody = z.object({}).strict();
