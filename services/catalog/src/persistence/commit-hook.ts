import type { ServiceContext } from '@market/shared/service';

/**
 * Calls `fn` after every transaction this process commits, before the code that committed goes
 * on: every change a reader can see commits in a transaction with its event, so a cache dropped
 * here never serves anything older than this process's last write.
 */
export function afterEveryCommit(dataSource: ServiceContext['db'], fn: () => void) {
  dataSource.subscribers.push({ afterTransactionCommit: fn });
}
