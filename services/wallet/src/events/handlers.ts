import type { EventHandlers } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import { settleOrderEscrow } from '../application/settle-order';

/** What the wallet does with other services' events; the kit runs each in one transaction with its inbox row. */
export function walletEventHandlers(log: Logger): EventHandlers {
  return {
    'order.completed': (event, manager) => settleOrderEscrow(manager, log, event),
    'order.closed': (event, manager) => settleOrderEscrow(manager, log, event),
    'order.cancelled': (event, manager) => settleOrderEscrow(manager, log, event),
  };
}
