import type { SecretBox } from '@market/shared/crypto';
import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { RecentOrders } from './recent-orders';
import type { ConfigSource, FileRegistry, ListingDirectory, UserBlocks, UserDirectory, WalletAccounts } from './ports';
import type { SettingsCache } from './settings-cache';

/** What the use cases run against: the database, the outbox, the other services and the keyring. */
export interface OrdersDeps {
  db: Db;
  events: EventWriter;
  secrets: SecretBox;
  listings: ListingDirectory;
  users: UserDirectory;
  blocks: UserBlocks;
  wallet: WalletAccounts;
  files: FileRegistry;
  configSource: ConfigSource;
  /** the orders as this process last wrote them, to plan a party's next move on (ADR 0083) */
  recentOrders: RecentOrders;
  /** the settings in force, kept between changes */
  settings: SettingsCache;
  /** the length of one configured minute (ORDER_MINUTE_MS) */
  minuteMs: number;
  /** how long the wallet may still make a charge after it was asked (ORDER_CHARGE_WINDOW_MS) */
  chargeWindowMs: number;
  /** the length of one day of rating.window_days (RATING_DAY_MS) */
  ratingDayMs: number;
}
