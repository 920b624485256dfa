import type { Tx } from '@market/shared/db';
import { endGrants } from '../persistence/file-repository';

/**
 * Orders that ended (completed, closed, cancelled) take back their parties' read of the files
 * shared through them: the handoff's text is hidden from them then, and its attachments follow
 * (ADR 0056). Each party still reads the files it uploaded itself.
 */
export async function endOrderGrants(tx: Tx, orderIds: readonly string[]): Promise<void> {
  await endGrants(tx, 'order', orderIds);
}
