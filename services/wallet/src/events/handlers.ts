import type { EventHandlers } from '@market/shared/events';
import type { Logger } from '@market/shared/logging';
import { settleOrderEscrow } from '../application/settle-order';

/** What the wallet does with other services' events; the kit runs each in one transaction with its inbox row. */
export function walletEventHandlers(log: Logger): EventHandlers {
  return {
    'order.completed': (event, tx) => settleOrderEscrow(tx, log, event),
    'order.closed': (event, tx) => settleOrderEscrow(tx, log, event),
    'order.cancelled': (event, tx) => settleOrderEscrow(tx, log, event),
  };
}
