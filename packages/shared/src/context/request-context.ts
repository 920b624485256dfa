import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestScope {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The request id of the work in progress: logs and outgoing events pick it up as correlation id. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A client's request id is kept when it looks like one; anything else is replaced. */
export function acceptRequestId(value: unknown): string {
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : randomUUID();
}
