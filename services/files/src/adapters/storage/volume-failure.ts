import { type Logger } from '@market/shared/logging';
import { StorageUnavailable } from '../../domain/errors';

/**
 * A filesystem error of the disk store's volume (EIO, ENOSPC, EROFS, EACCES, ENOTDIR, the root
 * gone…) as the store being unavailable: a 503 the client may retry, as the bucket store answers
 * its outages (ADR 0063). Logged with its code and system call; the path says nothing secret.
 */
export function volumeUnavailable(log: Logger | undefined, operation: string, err: unknown): StorageUnavailable {
  const { code, syscall } = err as NodeJS.ErrnoException;
  log?.warn({ operation, code, syscall }, 'file storage volume failed');
  return new StorageUnavailable();
}
