import { z } from '@market/contracts';
import { dataEncryptionShape } from '@market/shared/config';

export const ordersEnvShape = {
  /** seals handoff notes (account credentials) at rest */
  ...dataEncryptionShape,
  /** how often the timeout scan looks for orders past their deadline */
  ORDER_SCAN_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5000),
  /**
   * The length of one configured "minute" of the order thresholds. Only tests shorten it, so a
   * threshold of 1 passes in a second; production refuses anything but 60000.
   */
  ORDER_MINUTE_MS: z.coerce.number().int().min(100).max(60_000).default(60_000),
  /**
   * How long after a pay asks for it the wallet may still make a charge (ADR 0028); past it the
   * wallet refuses that charge and the reconciler may take "not charged" as final. Above the 5 s
   * internal-call timeout, so a charge the pay still waits for is never refused.
   */
  ORDER_CHARGE_WINDOW_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** how often the charge reconciler looks for orders whose charge outcome or handoff is unsettled */
  ORDER_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5000),
  /** the length of one day of `rating.window_days`; only tests shorten it, production refuses anything but a day (ADR 0066) */
  RATING_DAY_MS: z.coerce.number().int().min(100).max(86_400_000).default(86_400_000),
  /** how often the rating publisher looks for ratings whose window has closed */
  RATING_PUBLISH_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /**
   * The longest a replica keeps the settings it read while it listens for their changes (each change
   * drops them at once on every replica, ADR 0068): the bound should a change's notification be lost.
   */
  ORDER_SETTINGS_MAX_AGE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** how long to wait between attempts to read the configuration from the admin service at start */
  SETTINGS_RETRY_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
};
