import type {
  chargeOrderEscrow,
  fileMeta,
  InternalResult,
  listingById,
  orderChargeStatus,
  orderLedger,
  renewalChargeStatus,
  RenewalCharge as RenewalChargeSchema,
  systemConfigValues,
  userStanding,
  z,
} from '@market/contracts';
import type { DomainError } from '@market/shared/errors';

export type ListingView = InternalResult<typeof listingById>;
export type UserStanding = InternalResult<typeof userStanding>;
export type FileMeta = InternalResult<typeof fileMeta>;
export type OrderCharge = InternalResult<typeof chargeOrderEscrow>;
export type OrderLedger = InternalResult<typeof orderLedger>;
export type ChargeStatus = InternalResult<typeof orderChargeStatus>;
export type RenewalCharge = z.infer<typeof RenewalChargeSchema>;
export type RenewalChargeStatus = InternalResult<typeof renewalChargeStatus>;
export type ConfigValue = InternalResult<typeof systemConfigValues>['items'][number];

/** catalog: listings as they are now, and the credentials stored with one (opened; null when none). */
export interface ListingDirectory {
  byId(id: string): Promise<ListingView | null>;
  credentials(id: string): Promise<string | null>;
}

/** identity: whether a user may rent; null for an id identity does not know. */
export interface UserDirectory {
  standing(id: string): Promise<UserStanding | null>;
}

/**
 * identity's blocks, where the gateway reads them on every request: whether a user is frozen now
 * (written before a freeze commits, lifted with the unfreeze). Unreachable: it throws (503).
 */
export interface UserBlocks {
  frozen(id: string): Promise<boolean>;
}

/**
 * wallet: the order id is the idempotency key of a charge, so a repeated charge moves nothing; a
 * charge the wallet meets after `not_after` is refused. `chargeStatus` answers whether the order was
 * charged once no charge of it is running; `ledger` is the order's money.
 */
export interface WalletAccounts {
  charge(order: { id: string; renter_id: string; owner_id: string; amount: number; not_after: Date }): Promise<OrderCharge>;
  chargeStatus(orderId: string): Promise<ChargeStatus>;
  ledger(orderId: string): Promise<OrderLedger>;
  /**
   * A renewal's extra rent into the order's escrow, keyed by the renewal id (ADR 0065): the charge,
   * or the wallet's refusal (nothing moved: a short balance, an ended escrow, a deadline passed).
   * An unreachable or failing wallet throws: the outcome is unknown and the reconciler asks later.
   */
  chargeRenewal(renewal: { orderId: string; renewalId: string; renterId: string; amount: number; notAfter: Date }): Promise<{ charged: RenewalCharge } | { refused: DomainError }>;
  renewalChargeStatus(orderId: string, renewalId: string): Promise<RenewalChargeStatus>;
  /** the user's available balance now (0 for a user the wallet has never seen) */
  available(userId: string): Promise<number>;
}

/** files: who uploaded a key, and letting an order's parties read private files. */
export interface FileRegistry {
  meta(key: string): Promise<FileMeta | null>;
  attachToOrder(keys: string[], orderId: string, readerIds: string[]): Promise<void>;
}

/** admin: every system configuration value now. */
export interface ConfigSource {
  values(): Promise<ConfigValue[]>;
}
