import type { EventHandlers } from '@market/shared/events';
import { settleOrderEscrow, type SettlementDeps } from '../application/settle-order';

/** What the wallet does with other services' events; the kit runs each in one transaction with its inbox row. */
export function walletEventHandlers(deps: SettlementDeps): EventHandlers {
  return {
    'order.completed': (event, tx) => settleOrderEscrow(deps, tx, event),
    'order.closed': (event, tx) => settleOrderEscrow(deps, tx, event),
    'order.cancelled': (event, tx) => settleOrderEscrow(deps, tx, event),
  };
}
