import { createDataSource, initializeDataSource } from '../src/db/data-source';
import { sqlMigration } from '../src/db/migration';
import { CreateOutboxAndInbox1763800000000 } from '../src/events/outbox';

/** What a test consumer's handler writes, one row per application, so "applied once" can be counted. */
export const CreateEffects1763800000001 = sqlMigration(
  'CreateEffects1763800000001',
  [`CREATE TABLE effects (event_id uuid NOT NULL, user_id text NOT NULL)`],
  [`DROP TABLE effects`],
);

export async function until(condition: () => Promise<boolean> | boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

/** A producing service's schema (outbox, inbox) and a consuming one's (plus effects), migrated. */
export async function producerAndConsumerDbs(url: string, producerSchema: string, consumerSchema: string) {
  const producerDb = createDataSource({ url, schema: producerSchema, entities: [], migrations: [CreateOutboxAndInbox1763800000000] });
  const consumerDb = createDataSource({
    url,
    schema: consumerSchema,
    entities: [],
    migrations: [CreateOutboxAndInbox1763800000000, CreateEffects1763800000001],
  });
  await initializeDataSource(producerDb, producerSchema);
  await initializeDataSource(consumerDb, consumerSchema);
  return { producerDb, consumerDb };
}

/** A message taken from a dead-letter queue, as amqplib hands it over. */
export interface ParkedMessage {
  content: Buffer;
  properties: { headers: Record<string, unknown> };
}

/** What a parked `user.registered` says: whose event it is, after how many attempts, and why it was parked. */
export function parkedAs(message: ParkedMessage) {
  return {
    userId: JSON.parse(message.content.toString()).data.user_id,
    attempts: message.properties.headers['x-attempts'],
    lastError: message.properties.headers['x-last-error'],
  };
}
