import {
  attachFiles,
  chargeOrderEscrow,
  fileMeta,
  listingById,
  listingCredentials,
  orderLedger,
  systemConfigValues,
  userStanding,
  type InternalResult,
} from '@market/contracts';
import { type InternalClient } from '@market/shared/http';

export type ListingView = InternalResult<typeof listingById>;
export type UserStanding = InternalResult<typeof userStanding>;
export type FileMeta = InternalResult<typeof fileMeta>;
export type OrderCharge = InternalResult<typeof chargeOrderEscrow>;

/** catalog: listings as they are now, and the credentials stored with one (opened; null when none). */
export function listingDirectory(internal: InternalClient) {
  return {
    byId: (id: string): Promise<ListingView | null> => internal.find(listingById, { params: { id } }),
    credentials: async (id: string): Promise<string | null> => (await internal.find(listingCredentials, { params: { id } }))?.credentials ?? null,
  };
}

/** identity: whether a user may rent; null for an id identity does not know. */
export function userDirectory(internal: InternalClient) {
  return {
    standing: (id: string): Promise<UserStanding | null> => internal.find(userStanding, { params: { id } }),
  };
}

/** wallet: the order id is the idempotency key of a charge, so a repeated charge moves nothing; `ledger` is the order's money. */
export function walletAccounts(internal: InternalClient) {
  return {
    charge: (order: { id: string; renter_id: string; owner_id: string; amount: number }): Promise<OrderCharge> =>
      internal.call(chargeOrderEscrow, {
        params: { id: order.id },
        body: { renter_id: order.renter_id, owner_id: order.owner_id, amount: order.amount },
      }),
    ledger: (orderId: string): Promise<InternalResult<typeof orderLedger>> => internal.call(orderLedger, { params: { id: orderId } }),
  };
}

/** files: who uploaded a key, and letting an order's parties read private files. */
export function fileRegistry(internal: InternalClient) {
  return {
    meta: (key: string): Promise<FileMeta | null> => internal.find(fileMeta, { query: { key } }),
    attachToOrder: (keys: string[], orderId: string, readerIds: string[]) =>
      internal.call(attachFiles, { body: { keys, biz_type: 'order', biz_id: orderId, reader_ids: readerIds } }),
  };
}

/** admin: every system configuration value now. */
export function configSource(internal: InternalClient) {
  return {
    values: async () => (await internal.call(systemConfigValues)).items,
  };
}

export type ListingDirectory = ReturnType<typeof listingDirectory>;
export type UserDirectory = ReturnType<typeof userDirectory>;
export type WalletAccounts = ReturnType<typeof walletAccounts>;
export type FileRegistry = ReturnType<typeof fileRegistry>;
export type ConfigSource = ReturnType<typeof configSource>;
