import { type RealnameStatus, type z } from '@market/contracts';
import { mask } from '@market/shared/crypto';

export type RealnameState = z.infer<typeof RealnameStatus>;
/** What a verification attempt ends in; a verifier answers with one of these. */
export type DecidedState = Exclude<RealnameState, 'unverified'>;
export type VerifierDecision = DecidedState;

/**
 * Where a verification attempt may start and where each verifier answer leads. `pending` is for
 * verifiers that answer later (the planned callback); a verified identity is never re-verified.
 */
export const REALNAME_TRANSITIONS: ReadonlyArray<{ from: RealnameState; decision: VerifierDecision; to: DecidedState }> = [
  { from: 'unverified', decision: 'verified', to: 'verified' },
  { from: 'unverified', decision: 'failed', to: 'failed' },
  { from: 'unverified', decision: 'pending', to: 'pending' },
  { from: 'failed', decision: 'verified', to: 'verified' },
  { from: 'failed', decision: 'failed', to: 'failed' },
  { from: 'failed', decision: 'pending', to: 'pending' },
];

export const REALNAME_STARTABLE: ReadonlySet<RealnameState> = new Set(REALNAME_TRANSITIONS.map((t) => t.from));

export function realnameOutcome(from: RealnameState, decision: VerifierDecision): DecidedState | null {
  return REALNAME_TRANSITIONS.find((t) => t.from === from && t.decision === decision)?.to ?? null;
}

/** `张明` → `*明`: only the last character shows. */
export function maskRealName(name: string): string {
  return mask(name, 0, 1);
}

/** `11010519491231002X` → `1101**********002X`. */
export function maskIdNumber(idNumber: string): string {
  return mask(idNumber.toUpperCase(), 4, 4);
}
