import {
  acceptCheckout,
  cancelOrder as cancelOrderRoute,
  confirmCheckout,
  confirmReceive as confirmReceiveRoute,
  counterCheckout,
  createOrder as createOrderRoute,
  getOrder,
  listHandoffRecords,
  listOrders,
  notImplementedRoutes,
  ordersRoutes,
  payOrder as payOrderRoute,
  rejectCheckout as rejectCheckoutRoute,
  route,
  startCheckout as startCheckoutRoute,
  submitHandoff as submitHandoffRoute,
  type RouteBinding,
} from '@market/shared';
import { counterCheckoutProposal, startCheckout } from '../application/checkout';
import { createOrder } from '../application/create-order';
import type { OrdersDeps } from '../application/deps';
import { cancelOrder, completeCheckout, confirmReceive } from '../application/party-moves';
import { payOrder } from '../application/pay-order';
import { callerOrders, partyHandoffRecords, partyOrderView } from '../application/read-orders';
import { rejectCheckout } from '../application/reject-checkout';
import { submitHandoff } from '../application/submit-handoff';

export function ordersRouteBindings(deps: OrdersDeps): RouteBinding[] {
  const built = [
    route(createOrderRoute, ({ body, identity }) => createOrder(deps, identity, body)),
    route(listOrders, ({ query, identity }) => callerOrders(deps, identity, query)),
    route(getOrder, ({ params, identity }) => partyOrderView(deps, identity, params.id)),
    route(payOrderRoute, ({ params, identity }) => payOrder(deps, identity, params.id)),
    route(cancelOrderRoute, ({ params, body, identity }) => cancelOrder(deps, identity, params.id, body.reason ?? null)),
    route(submitHandoffRoute, ({ params, body, identity }) => submitHandoff(deps, identity, params.id, body)),
    route(listHandoffRecords, ({ params, identity }) => partyHandoffRecords(deps, identity, params.id)),
    route(confirmReceiveRoute, ({ params, identity }) => confirmReceive(deps, identity, params.id)),
    route(startCheckoutRoute, ({ params, body, identity }) => startCheckout(deps, identity, params.id, body)),
    route(confirmCheckout, ({ params, identity }) => completeCheckout(deps, identity, params.id, 'confirm_checkout')),
    route(counterCheckout, ({ params, body, identity }) => counterCheckoutProposal(deps, identity, params.id, body)),
    route(acceptCheckout, ({ params, identity }) => completeCheckout(deps, identity, params.id, 'accept_checkout')),
    route(rejectCheckoutRoute, ({ params, body, identity }) => rejectCheckout(deps, identity, params.id, body.reason)),
  ];
  // Disputes and the back office's order routes come with the next issue.
  const builtIds = new Set(built.map((b) => b.contract.id));
  return [...built, ...notImplementedRoutes(ordersRoutes.filter((r) => !builtIds.has(r.id)))];
}
