import { createHash, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/sql';
import { sqlMigration } from '../db/migration';
import { updateReturning } from '../db/sql';
import { problems } from './problem';

/** The request header, lower-cased as Node presents it (docs/rules.md §1: a repeat returns the first response). */
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

/**
 * A claim is fenced by its own token and held by a lease the holder keeps renewing while its work
 * runs. Only a holder that stopped renewing (a crashed or stalled process) can lose the key, and
 * a holder that lost it can no longer complete or release it over its successor's claim.
 */
export const FenceIdempotencyClaims1763800000002 = sqlMigration(
  'FenceIdempotencyClaims1763800000002',
  [
    `ALTER TABLE idempotency_keys ADD COLUMN claim_token uuid, ADD COLUMN lease_expires_at timestamptz`,
    `UPDATE idempotency_keys SET claim_token = gen_random_uuid(), lease_expires_at = created_at + interval '60 seconds'
     WHERE state = 'in_progress'`,
    `ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_claim_held
       CHECK (state <> 'in_progress' OR (claim_token IS NOT NULL AND lease_expires_at IS NOT NULL))`,
  ],
  [
    `ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_claim_held`,
    `ALTER TABLE idempotency_keys DROP COLUMN lease_expires_at, DROP COLUMN claim_token`,
  ],
);

/** What a service taking `Idempotency-Key` lists among its migrations, in this order. */
export const idempotencyMigrations = [CreateIdempotencyKeys1763800000001, FenceIdempotencyClaims1763800000002];

interface Claim {
  scope: string;
  key: string;
  token: string;
}

type IdempotencyOutcome = { kind: 'proceed'; claim: Claim } | { kind: 'replay'; status: number; body: unknown };

export interface StoredResponse {
  status: number;
  body: unknown;
}

export function requestFingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts ?? null)).digest('base64url');
}

export interface IdempotencyOptions {
  /** how long a completed key answers repeats */
  ttlHours?: number;
  /** a claim whose holder has not renewed it for this long is taken over by the next request */
  leaseSeconds?: number;
}

/**
 * Remembers the first response to each (caller, route, key) for `ttlHours`. The first request
 * claims the key; a repeat with the same input gets the stored response; the same key with other
 * input is `409 IDEMPOTENCY_KEY_REUSED`; a repeat while the first is still running is `409 CONFLICT`,
 * however long it runs, since its holder renews the claim every third of `leaseSeconds`. A claim
 * left behind by a crashed process is taken over once its lease lapses, and a failed request
 * releases its key, so in both cases a retry runs again (the use case itself must refuse a second
 * effect, as a state machine does).
 */
export class IdempotencyStore {
  private readonly ttlHours: number;
  private readonly leaseSeconds: number;

  constructor(
    private readonly db: Queryable,
    opts: IdempotencyOptions = {},
  ) {
    this.ttlHours = opts.ttlHours ?? 24;
    this.leaseSeconds = opts.leaseSeconds ?? 60;
  }

  private async begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const token = randomUUID();
    const claimed = await this.db.query(
      `INSERT INTO idempotency_keys (scope, key, fingerprint, state, claim_token, lease_expires_at)
       VALUES ($1, $2, $3, 'in_progress', $6, now() + make_interval(secs => $5))
       ON CONFLICT (scope, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', created_at = now(),
             response_status = NULL, response_body = NULL,
             claim_token = EXCLUDED.claim_token, lease_expires_at = EXCLUDED.lease_expires_at
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $4)
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.lease_expires_at < now())
       RETURNING key`,
      [scope, key, fingerprint, this.ttlHours, this.leaseSeconds, token],
    );
    if (claimed.length > 0) return { kind: 'proceed', claim: { scope, key, token } };
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
   * `null` from `work` means it answered by itself (a stream): nothing is stored and the key is
   * released. A holder that lost its claim still answers its own response, unstored.
   */
  async once(
    scope: string,
    key: string,
    fingerprint: string,
    work: () => Promise<StoredResponse | null>,
  ): Promise<{ response: StoredResponse | null; replayed: boolean }> {
    const outcome = await this.begin(scope, key, fingerprint);
    if (outcome.kind === 'replay') return { response: { status: outcome.status, body: outcome.body }, replayed: true };
    const { claim } = outcome;
    const stopRenewing = this.keepRenewing(claim);
    let response: StoredResponse | null;
    try {
      response = await work();
    } catch (err) {
      stopRenewing();
      // A release that fails leaves the claim to lapse; the work's own error is what the caller needs.
      await this.release(claim).catch(() => undefined);
      throw err;
    }
    stopRenewing();
    if (response) await this.complete(claim, response);
    else await this.release(claim);
    return { response, replayed: false };
  }

  private keepRenewing(claim: Claim): () => void {
    const timer = setInterval(() => {
      this.renew(claim).then(
        (held) => {
          if (!held) clearInterval(timer);
        },
        // A renewal lost to a database hiccup is retried on the next tick, within the lease.
        () => undefined,
      );
    }, (this.leaseSeconds * 1000) / 3);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Extends a live lease only: once it has lapsed the key may belong to another request. */
  private async renew({ scope, key, token }: Claim): Promise<boolean> {
    const renewed = await updateReturning(
      this.db,
      `UPDATE idempotency_keys SET lease_expires_at = now() + make_interval(secs => $4)
       WHERE scope = $1 AND key = $2 AND claim_token = $3 AND state = 'in_progress' AND lease_expires_at >= now()
       RETURNING key`,
      [scope, key, token, this.leaseSeconds],
    );
    return renewed.length > 0;
  }

  private async complete({ scope, key, token }: Claim, response: StoredResponse) {
    await updateReturning(
      this.db,
      `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_body = $5,
         claim_token = NULL, lease_expires_at = NULL
       WHERE scope = $1 AND key = $2 AND claim_token = $3 AND state = 'in_progress' RETURNING key`,
      [scope, key, token, response.status, JSON.stringify(response.body ?? null)],
    );
  }

  private async release({ scope, key, token }: Claim) {
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND claim_token = $3 AND state = 'in_progress'`,
      [scope, key, token],
    );
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

  /** Whether the service's schema has the table as `idempotencyMigrations` leave it. */
  async isInstalled(): Promise<boolean> {
    const [{ present }] = await this.db.query(
      `SELECT EXISTS (
         SELECT 1 FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = 'idempotency_keys' AND column_name = 'claim_token'
       ) AS present`,
    );
    return present;
  }
}

