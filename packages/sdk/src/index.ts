export { createMarketClient, ok, type MarketClient, type MarketClientOptions, type Realm, type Tokens } from './client';
export { ApiProblem, problemFrom, type ProblemBody } from './problem';
export { items, pages, type CursorPage } from './pages';
export { openEventStream, parseEventBlock, type EventStream, type EventStreamOptions, type StreamEvent, type StreamState } from './event-stream';
export type { components, operations, paths } from './generated/schema';
export { IDEMPOTENT_OPERATIONS } from './generated/idempotent';

import type { components } from './generated/schema';
/** A named schema of the OpenAPI document: `Schema<'Listing'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
