import type { EventType } from '@market/contracts';
import { eventually, outboxEvents as outboxOf, type Stack } from '@market/testkit';

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
