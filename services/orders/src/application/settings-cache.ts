import type { Queryable } from '@market/shared/db';
import type { OrderSettings } from '../domain/settings';
import { readCurrentSettings } from './settings';

/** The Postgres channel on which a commit that changed orders' stored settings tells every replica. */
export function settingsChannel(schema: string) {
  return `settings_${schema}`;
}

/**
 * The settings in force as this replica keeps them between changes, so a move does not read
 * `system_settings` each time (ADR 0068, third round). Every transaction that changes the stored
 * copy NOTIFYs `settingsChannel` (delivered at commit, to every replica); a replica drops what it
 * keeps when the notification arrives, so a change is in force everywhere as soon as its commit's
 * notification has reached each replica (milliseconds). Only while this replica is listening is
 * anything kept: before the LISTEN is in force, or after its connection was lost (a notification
 * sent meanwhile would be lost), every use reads the table as before. `maxAgeMs` bounds the age of
 * what is kept should a notification still go astray (a connection that died unnoticed).
 *
 * A read that began before a change's notification arrived is answered to the callers that waited
 * for it but not kept for later ones: the drop forgets the pending read too.
 */
export class SettingsCache {
  private kept: { settings: Promise<OrderSettings>; readAt: number } | null = null;
  private listening = false;

  constructor(
    readonly channel: string,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The settings in force; `db` (the pool or the caller's transaction) reads them when nothing is kept. */
  current(db: Queryable): Promise<OrderSettings> {
    if (!this.listening) return readCurrentSettings(db);
    const kept = this.kept;
    if (kept && this.now() - kept.readAt < this.maxAgeMs) return kept.settings;
    const settings = readCurrentSettings(db);
    const entry = { settings, readAt: this.now() };
    this.kept = entry;
    // a failed read is not kept: the next use reads again
    settings.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
    return settings;
  }

  /** A commit changed the stored settings (its notification). */
  changed() {
    this.kept = null;
  }

  /** Whether notifications reach this replica now; what was kept before either way may be stale. */
  listeningChanged(listening: boolean) {
    this.listening = listening;
    this.kept = null;
  }
}
