import type { EventType } from '@market/contracts';
import { eventually, outboxEvents as outboxOf, type api, type Caller, type Stack } from '@market/testkit';

export { eventually, publishEvent } from '@market/testkit';

export { newAdmin, newUser, type Caller } from '@market/testkit';

export const listingBody = (overrides: Record<string, unknown> = {}) => ({
  title: '王者荣耀 荣耀王者 全英雄',
  game: '王者荣耀',
  server: '微信区',
  description: '皮肤 200+',
  hourly_price: 800,
  min_hours: 1,
  max_hours: 24,
  deposit: 5000,
  ...overrides,
});

export type ListingAnswer = { id: string; title: string; description: string | null } & Record<string, any>;

/**
 * A listing made through the API: a draft, or one taken through review to online by `admin`.
 * `client` and `admin` are read at each call: suites make theirs in `beforeAll`.
 */
export function listingMaker(client: () => ReturnType<typeof api>, admin: () => Caller) {
  async function create(owner: Caller, overrides: Record<string, unknown> = {}): Promise<ListingAnswer> {
    const res = await client().post('/api/listings', listingBody(overrides), owner.token);
    expect(res.status).toBe(201);
    return res.body;
  }
  async function online(owner: Caller, overrides: Record<string, unknown> = {}): Promise<ListingAnswer> {
    const listing = await create(owner, overrides);
    expect((await client().post(`/api/listings/${listing.id}/submit-review`, {}, owner.token)).status).toBe(200);
    const approved = await client().post(`/api/admin/listings/${listing.id}/approve`, {}, admin().token);
    expect(approved.status).toBe(200);
    return approved.body;
  }
  return { create, online };
}

/** The events of `type` this stack's catalog wrote to its outbox about `listingId`, oldest first. */
export async function outboxEvents(stack: Stack, type: EventType, listingId?: string) {
  const events = await outboxOf(stack, 'catalog', type);
  return events.filter((e) => listingId === undefined || e.data.listing_id === listingId);
}

/** Waits until the stack's catalog has handled the event (its inbox holds the id). */
export function eventHandled(stack: Stack, eventId: string) {
  return eventually(
    () => stack.services.catalog!.ctx.db.query(`SELECT 1 FROM inbox WHERE event_id = $1`, [eventId]),
    (rows: unknown[]) => rows.length === 1,
  );
}

/**
 * Waits until the stack's catalog has sent every event it wrote: marking them sent is a commit of
 * its own, which catalog announces to the gateways like any other (ADR 0068), so a test counting
 * what reaches catalog starts once that is done.
 */
export function eventsSent(stack: Stack) {
  return eventually(
    () => stack.services.catalog!.ctx.db.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`),
    (rows: Array<{ n: number }>) => rows[0]!.n === 0,
  );
}
