import { connect } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import { buildEvent, signAccessToken, tokenSecretShape, type EventData, type EventType } from '@market/shared';
import type { Stack } from '@market/testkit';

const userSecret = tokenSecretShape.USER_TOKEN_SECRET.parse(undefined);
const adminSecret = tokenSecretShape.ADMIN_TOKEN_SECRET.parse(undefined);

export interface Caller {
  id: string;
  token: string;
}

/** A user as the gateway would see one after login, without going through identity. */
export function newUser(): Caller {
  const id = uuidv7();
  return { id, token: signAccessToken('user', id, uuidv7(), userSecret, 3600).token };
}

export function newAdmin(): Caller {
  const id = uuidv7();
  return { id, token: signAccessToken('admin', id, uuidv7(), adminSecret, 3600).token };
}

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

/** Publishes an event as its producing service would, onto the stack's exchange. */
export async function publishEvent<T extends EventType>(stack: Stack, type: T, data: EventData<T>) {
  const connection = await connect(String(stack.env.AMQP_URL));
  try {
    const channel = await connection.createConfirmChannel();
    const event = buildEvent(type, data, 'test', null);
    channel.publish(String(stack.env.EVENTS_EXCHANGE), type, Buffer.from(JSON.stringify(event)), {
      persistent: true,
      messageId: event.id,
      type,
      contentType: 'application/json',
    });
    await channel.waitForConfirms();
    await channel.close();
    return event;
  } finally {
    await connection.close();
  }
}

export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The events of `type` this stack's catalog wrote to its outbox about `listingId`, oldest first. */
export async function outboxEvents(stack: Stack, type: string, listingId?: string): Promise<any[]> {
  const rows: Array<{ payload: any }> = await stack.services.catalog!.ctx.db.query(
    `SELECT payload FROM outbox WHERE type = $1 ORDER BY seq`,
    [type],
  );
  return rows.map((r) => r.payload).filter((e) => listingId === undefined || e.data.listing_id === listingId);
}
