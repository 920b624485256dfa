import type { Revocations } from '@market/shared/auth';
import type { Db } from '@market/shared/db';
import type { RedisClient } from '@market/shared/redis';
import { lockFrozenUserIds } from '../persistence/user-repository';

export interface UserBlocksDeps {
  db: Db;
  redis: RedisClient;
  revocations: Revocations;
  /** the key written with the blocks: while Redis holds it, it holds them */
  marker: string;
}

/**
 * Writes the frozen users' blocks into Redis again once Redis has lost them (a restart without
 * persistence, a failover to a replica that had not caught up). The gateway and orders read a freeze
 * there on every request (ADR 0078); without its block a frozen user's access token would work
 * again until it expired. While Redis keeps its data this is one read of the marker.
 *
 * The frozen users are read FOR SHARE in the transaction the blocks are written in, so an unfreeze,
 * which lifts its block inside its own transaction, never has its lift overwritten: it committed
 * before the read (its user is not read), or it waits until the blocks are written.
 *
 * Answers how many blocks were written, or null when Redis still held them.
 */
export async function restoreUserBlocks(deps: UserBlocksDeps): Promise<number | null> {
  if ((await deps.redis.exists(deps.marker)) === 1) return null;
  return deps.db.transaction(async (tx) => {
    const frozen = await lockFrozenUserIds(tx);
    await deps.revocations.restoreBlocks('user', frozen, deps.marker);
    return frozen.length;
  });
}
