import type { z } from 'zod';

/**
 * What a failure means for whoever would try again: `permanent` fails the same way on every try
 * (the input contradicts what the service knows), `transient` may succeed later (a database or
 * broker outage, a lock, a race, a timeout). Consumers decide retry or give-up from this alone.
 */
export type FailureKind = 'permanent' | 'transient';

/** A field that broke a rule, by its path in the input (`body.amount`, `query.cursor`). */
export interface FieldError {
  path: string;
  message: string;
}

/** A schema's issues as field errors, their paths under `prefix` (`body`, `query`, `value`). */
export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], prefix?: string): FieldError[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const full = [prefix, path].filter(Boolean).join('.');
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
    return { path: full || '(root)', message };
  });
}

/** What a refusal may carry beyond its code and message, still free of any transport. */
export interface DomainErrorDetails {
  /** the fields at fault */
  errors?: FieldError[];
  /** when trying again can succeed (a rate limit) */
  retryAfterSeconds?: number;
  /** the configured limit a refusal hit, by its key and value, for the caller to show */
  limit?: ProblemLimit;
}

/** A configured limit as a problem names it: its configuration key and its value now. */
export interface ProblemLimit {
  name: string;
  value: number;
}

/**
 * A coded failure of the domain, free of any transport: `code` is stable (the HTTP edge maps it to
 * a status through the service's table, an event consumer to retry or park through `kind`), and
 * `kind` says whether trying again can help.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly kind: FailureKind,
    readonly details: DomainErrorDetails = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A refusal that no retry can change. */
export class PermanentError extends DomainError {
  constructor(code: string, message: string, details?: DomainErrorDetails) {
    super(code, message, 'permanent', details);
  }
}

/** A failure of something outside the rule being applied, which may be gone on the next try. */
export class TransientError extends DomainError {
  constructor(code: string, message: string, details?: DomainErrorDetails) {
    super(code, message, 'transient', details);
  }
}

/**
 * The bases of a service's refusals under its own codes, typed to them: a service's `domain/errors.ts`
 * declares its codes once, as a union, and each refusal as a short class on one of these typed to
 * it (`class OrderChanged extends TransientRefusal<OrdersErrorCode>`), so a code outside the union
 * is a type error where the refusal is written.
 * A refusal under one of the kit's codes (NOT_FOUND, FORBIDDEN, RATE_LIMITED …) subclasses the
 * kit's class below instead. Which base says what a retry can do, as `PermanentError` and
 * `TransientError` do (a conflict, a limit or an outage is transient; a broken rule permanent).
 */
export class PermanentRefusal<Code extends string> extends PermanentError {
  declare readonly code: Code;

  constructor(code: Code, message: string, details?: DomainErrorDetails) {
    super(code, message, details);
  }
}

/** The transient counterpart of `PermanentRefusal`: a refusal under a service's own code that a later try can escape. */
export class TransientRefusal<Code extends string> extends TransientError {
  declare readonly code: Code;

  constructor(code: Code, message: string, details?: DomainErrorDetails) {
    super(code, message, details);
  }
}

/*
 * The refusals every service meets, under the codes the API has always answered. A service's own
 * refusals are `PermanentRefusal`/`TransientRefusal`s in its `domain/errors.ts` under its own
 * codes, each given a status in its HTTP edge's table.
 */

/** The thing asked for does not exist, or is not the caller's to see. */
export class NotFound extends PermanentError {
  constructor(message = 'resource not found') {
    super('NOT_FOUND', message);
  }
}

/** The caller may not do this, whatever the state. */
export class Forbidden extends PermanentError {
  constructor(message = 'not allowed', code = 'FORBIDDEN') {
    super(code, message);
  }
}

/** The caller is not (or no longer) who may act. */
export class Unauthenticated extends PermanentError {
  constructor(message = 'authentication required', code = 'UNAUTHENTICATED') {
    super(code, message);
  }
}

/**
 * The thing is in a state that does not allow this now. Transient: a state can still change
 * (an event that arrives before the one it follows applies once that one has).
 */
export class InvalidState extends TransientError {
  constructor(message: string, code = 'INVALID_STATE') {
    super(code, message);
  }
}

/** Someone else got there first (a duplicate, a lost race); trying again may meet a new state. */
export class Conflict extends TransientError {
  constructor(message: string, code = 'CONFLICT') {
    super(code, message);
  }
}

/** The input is well formed but breaks a business rule. */
export class RuleBroken extends PermanentError {}

/** The input breaks the rules of its fields (checked past the schema: a file's bytes, a sum). */
export class InvalidInput extends PermanentError {
  constructor(errors: FieldError[], message = 'request failed validation') {
    super('VALIDATION_FAILED', message, { errors });
  }
}

/** Too many tries of something limited; it can succeed after `retryAfterSeconds`. */
export class RateLimited extends TransientError {
  constructor(retryAfterSeconds: number, message = 'too many requests; slow down', code = 'RATE_LIMITED') {
    super(code, message, { retryAfterSeconds });
  }
}

/**
 * A system this one relies on (a neighbour service, a provider) did not answer (`unreachable`) or
 * answered off its contract (`bad_answer`).
 */
export class DependencyFailed extends TransientError {
  constructor(
    readonly reason: 'unreachable' | 'bad_answer',
    message = 'a backing service is unavailable; try again shortly',
  ) {
    super('UPSTREAM_UNAVAILABLE', message);
  }
}

/**
 * The kind of any thrown value, the one place that decides it: a `DomainError` says its own; an
 * unreachable or timed-out database is transient; anything else (a bug, an unknown error) is
 * transient too, because giving up on it would lose work a fix or a recovered dependency can
 * still do. Nothing here reads an HTTP status: use cases throw domain errors (ADR 0041).
 */
export function failureKind(err: unknown): FailureKind {
  if (err instanceof DomainError) return err.kind;
  return 'transient';
}
