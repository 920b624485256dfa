import { DependencyFailed } from '@market/shared/errors';

/**
 * Notify's own refusal codes, beside the kit's (ADR 0041): none yet, it refuses only with the
 * kit's. `http/error-statuses.ts` must answer each, so a code added here and not there fails to compile.
 */
export type NotifyErrorCode = never;

/** This replica is stopping and opens no more live streams; the client reconnects, and reaches another. */
export class StreamsStopped extends DependencyFailed {
  constructor() {
    super('unreachable');
  }
}
