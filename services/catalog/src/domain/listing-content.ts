import type { Listing, UpdateListingBody, z } from '@market/contracts';
import type { FieldError } from '@market/shared/errors';

export type ListingChanges = z.infer<typeof UpdateListingBody>;

/** The owner-editable part of a listing, as stored. */
export type ListingContent = Pick<
  z.infer<typeof Listing>,
  'title' | 'game' | 'server' | 'description' | 'hourly_price' | 'min_hours' | 'max_hours' | 'deposit' | 'screenshot_urls' | 'allow_renewal'
>;

/** A new listing's content from a create body or an open-upload item; what was not sent is empty. */
export function newListingContent(input: {
  title: string;
  game: string;
  server?: string | null;
  description?: string | null;
  hourly_price: number;
  min_hours?: number;
  max_hours?: number | null;
  deposit: number;
  screenshot_urls: string[];
  allow_renewal?: boolean;
}): ListingContent {
  return {
    title: input.title,
    game: input.game,
    server: input.server ?? null,
    description: input.description ?? null,
    hourly_price: input.hourly_price,
    min_hours: input.min_hours ?? 1,
    max_hours: input.max_hours ?? null,
    deposit: input.deposit,
    screenshot_urls: input.screenshot_urls,
    // renewal is on unless the owner switches it off (ADR 0065)
    allow_renewal: input.allow_renewal ?? true,
  };
}

const sameValue = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b;

/** The fields of `changes` whose value differs from the stored content (null clears an optional field). */
export function changedFields(current: ListingContent, changes: ListingChanges): Partial<ListingContent> {
  const changed: Partial<ListingContent> = {};
  for (const [key, value] of Object.entries(changes) as Array<[keyof ListingContent, unknown]>) {
    if (value === undefined) continue;
    if (!sameValue(current[key], value)) (changed as Record<string, unknown>)[key] = value;
  }
  return changed;
}

/**
 * A PUT may send only one bound; the schema cannot see the stored other one, so the service checks
 * the pair the listing would end up with.
 */
export function hoursBoundErrors(current: ListingContent, changes: ListingChanges): FieldError[] {
  const min = changes.min_hours ?? current.min_hours;
  const max = changes.max_hours === undefined ? current.max_hours : changes.max_hours;
  if (max === null || min <= max) return [];
  return changes.max_hours === undefined
    ? [{ path: 'min_hours', message: `must be <= max_hours (${max})` }]
    : [{ path: 'max_hours', message: `must be >= min_hours (${min})` }];
}
