import type { EventHandlers } from '@market/shared/events';
import type { OrdersDeps } from '../application/deps';
import { applySetting } from '../application/settings';

/** What orders does with other services' events; the kit runs each in one transaction with its inbox row. */
export function ordersEventHandlers(deps: Pick<OrdersDeps, 'minuteMs' | 'settings'>): EventHandlers {
  return {
    'system_config.changed': async (event, tx) => {
      await applySetting(tx, deps, event.data.key, event.data);
    },
  };
}
