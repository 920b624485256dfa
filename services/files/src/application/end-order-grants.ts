import type { Tx } from '@market/shared/db';
import { endGrants } from '../persistence/file-repository';

/**
 * An order that ended (completed, closed, cancelled) takes back its parties' read of the files
 * shared through it: the handoff's text is hidden from them then, and its attachments follow
 * (ADR 0056). Each party still reads the files it uploaded itself.
 */
export async function endOrderGrants(tx: Tx, orderId: string): Promise<void> {
  await endGrants(tx, 'order', orderId);
}
