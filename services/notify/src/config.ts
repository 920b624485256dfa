import { z } from '@market/contracts';

export const notifyEnvShape = {
  /** a comment line on every live stream this often; the session is re-checked at each */
  NOTIFY_HEARTBEAT_MS: z.coerce.number().int().min(50).default(15_000),
  /** a stream ends after this long and the client reconnects with Last-Event-ID (a fresh token) */
  NOTIFY_STREAM_MAX_AGE_MS: z.coerce.number().int().min(1000).default(15 * 60_000),
  /** streams one user may hold open on one replica; one more ends the oldest */
  NOTIFY_MAX_STREAMS_PER_USER: z.coerce.number().int().min(1).max(100).default(5),
};
