import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { Storage } from '../adapters/storage/storage';

/** What the use cases run on, built once in service.ts. */
export interface FilesDeps {
  db: Db;
  events: EventWriter;
  storage: Storage;
}
