import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { sqlMigration } from '../db/migration';
import { updateReturning } from '../db/sql';
import { problems } from './problem';

/** The request header, lower-cased as Node presents it (CONTRACT §1: a repeat returns the first response). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

export const CreateIdempotencyKeys1763800000001 = sqlMigration(
  'CreateIdempotencyKeys1763800000001',
  [
    `
      CREATE TABLE idempotency_keys (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response_status integer,
        response_body jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
      )`,
  ],
  [
    `DROP TABLE idempotency_keys`,
  ],
);

type IdempotencyOutcome = { kind: 'proceed' } | { kind: 'replay'; status: number; body: unknown };

export interface StoredResponse {
  status: number;
  body: unknown;
}

export function requestFingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts ?? null)).digest('base64url');
}

/**
 * Remembers the first response to each (caller, route, key) for `ttlHours`. The first request
 * claims the key; a repeat with the same input gets the stored response; the same key with other
 * input is `409 IDEMPOTENCY_KEY_REUSED`; a repeat while the first is still running is `409 CONFLICT`.
 * A claim left behind by a crashed process is taken over after `staleSeconds`, and a failed
 * request releases its key, so in both cases a retry runs again (the use case itself must refuse a
 * second effect, as a state machine does).
 */
export class IdempotencyStore {
  constructor(
    private readonly db: DataSource,
    private readonly ttlHours = 24,
    private readonly staleSeconds = 60,
  ) {}

  private async begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const claimed = await this.db.query(
      `INSERT INTO idempotency_keys (scope, key, fingerprint, state) VALUES ($1, $2, $3, 'in_progress')
       ON CONFLICT (scope, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', created_at = now(),
             response_status = NULL, response_body = NULL
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $4)
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.created_at < now() - make_interval(secs => $5))
       RETURNING key`,
      [scope, key, fingerprint, this.ttlHours, this.staleSeconds],
    );
    if (claimed.length > 0) return { kind: 'proceed' };
    const [existing] = await this.db.query(
      `SELECT fingerprint, state, response_status, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2`,
      [scope, key],
    );
    if (!existing) return this.begin(scope, key, fingerprint);
    if (existing.fingerprint !== fingerprint) {
      throw problems.conflict('this Idempotency-Key was used with a different request', 'IDEMPOTENCY_KEY_REUSED');
    }
    if (existing.state !== 'completed') {
      throw problems.conflict('a request with this Idempotency-Key is still being processed; retry shortly');
    }
    return { kind: 'replay', status: existing.response_status, body: existing.response_body };
  }

  /**
   * Runs `work` under the key: its response is stored for repeats; a failure releases the key.
   * `null` from `work` means it answered by itself (a stream), which is not stored.
   */
  async once(
    scope: string,
    key: string,
    fingerprint: string,
    work: () => Promise<StoredResponse | null>,
  ): Promise<{ response: StoredResponse | null; replayed: boolean }> {
    const outcome = await this.begin(scope, key, fingerprint);
    if (outcome.kind === 'replay') return { response: { status: outcome.status, body: outcome.body }, replayed: true };
    let response: StoredResponse | null;
    try {
      response = await work();
    } catch (err) {
      await this.release(scope, key);
      throw err;
    }
    if (response) await this.complete(scope, key, response.status, response.body);
    return { response, replayed: false };
  }

  private async complete(scope: string, key: string, status: number, body: unknown) {
    await updateReturning(
      this.db,
      `UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_body = $4
       WHERE scope = $1 AND key = $2 RETURNING key`,
      [scope, key, status, JSON.stringify(body ?? null)],
    );
  }

  private async release(scope: string, key: string) {
    await this.db.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND state = 'in_progress'`, [scope, key]);
  }

  /** Forgets keys past their life; returns how many. */
  async purgeExpired(): Promise<number> {
    const removed = await updateReturning(
      this.db,
      `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1) RETURNING key`,
      [this.ttlHours],
    );
    return removed.length;
  }

  /** Whether the service's schema has the table (it opts in with the migration above). */
  async isInstalled(): Promise<boolean> {
    const [{ present }] = await this.db.query(`SELECT to_regclass('idempotency_keys') IS NOT NULL AS present`);
    return present;
  }
}

