import type { EventHandlers } from '@market/shared/events';
import { applySetting } from '../application/settings';

/** What orders does with other services' events; the kit runs each in one transaction with its inbox row. */
export function ordersEventHandlers(minuteMs: number): EventHandlers {
  return {
    'system_config.changed': async (event, tx) => {
      await applySetting(tx, minuteMs, event.data.key, event.data);
    },
  };
}
