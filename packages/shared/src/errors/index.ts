import { isDatabaseUnavailable } from '../db/errors';
import { Problem } from '../http/problem';

/**
 * What a failure means for whoever would try again: `permanent` fails the same way on every try
 * (the input contradicts what the service knows), `transient` may succeed later (a database or
 * broker outage, a lock, a timeout). Consumers decide retry or give-up from this alone.
 */
export type FailureKind = 'permanent' | 'transient';

/**
 * A coded failure of the domain, free of any transport: `code` is stable (the HTTP layer may map
 * it to a problem, an event consumer to retry or park), `kind` says whether trying again can help.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly kind: FailureKind,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A refusal that no retry can change. */
export class PermanentError extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, 'permanent');
  }
}

/** A failure of something outside the rule being applied, which may be gone on the next try. */
export class TransientError extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, 'transient');
  }
}

/** Client statuses of today's Problems that mean "not now" (a lock, a race, a limit) rather than "never". */
const NOT_NOW_STATUSES = new Set([408, 409, 423, 425, 429]);

/**
 * The kind of any thrown value, the one place that decides it: a `DomainError` says its own; an
 * unreachable or timed-out database is transient; a 4xx Problem other than the "not now" ones is a
 * coded refusal thrown by code not yet converted to `DomainError`, so permanent; anything else (a
 * 5xx, a bug, an unknown error) is transient, because giving up on it would lose work a fix or a
 * recovered dependency can still do.
 */
export function failureKind(err: unknown): FailureKind {
  if (err instanceof DomainError) return err.kind;
  if (isDatabaseUnavailable(err)) return 'transient';
  if (err instanceof Problem && err.status >= 400 && err.status < 500 && !NOT_NOW_STATUSES.has(err.status)) return 'permanent';
  return 'transient';
}
