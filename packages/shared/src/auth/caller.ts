import { isUuid } from '../db/uuid';
import type { Identity } from './assertion';

/** The calling user's id; an admin, a service or a token subject that is not one of our ids is no user. */
export function callerUserId(identity: Identity): string | null {
  return identity.kind === 'user' && isUuid(identity.sub) ? identity.sub : null;
}
