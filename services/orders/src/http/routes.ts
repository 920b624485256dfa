import {
  acceptCheckout,
  adminCloseOrder,
  adminGetOrder,
  adminListDisputes,
  adminListHandoffRecords,
  adminRevealHandoffRecords,
  adminRequestReveal,
  adminListRevealRequests,
  adminApproveReveal,
  adminListOrders,
  adminMarkOrderAbnormal,
  arbitrateDispute as arbitrateDisputeRoute,
  getDispute,
  listDisputes,
  openDispute as openDisputeRoute,
  cancelOrder as cancelOrderRoute,
  confirmCheckout,
  confirmReceive as confirmReceiveRoute,
  counterCheckout,
  createOrder as createOrderRoute,
  getOrder,
  listHandoffRecords,
  listOrders,
  payOrder as payOrderRoute,
  rejectCheckout as rejectCheckoutRoute,
  renewOrder as renewOrderRoute,
  blockRenter as blockRenterRoute,
  unblockRenter as unblockRenterRoute,
  listRenterBlocks,
  adminRenterStanding,
  startCheckout as startCheckoutRoute,
  submitHandoff as submitHandoffRoute,
} from '@market/contracts';
import { route, type RouteBinding } from '@market/shared/http';
import { adminEndOrder } from '../application/admin-order-moves';
import { adminHandoffRecords, adminOrderDetail, allOrders } from '../application/admin-read-orders';
import { approveReveal, listRevealRequests, requestReveal, revealHandoffRecords } from '../application/reveal-handoff';
import { arbitrateDispute } from '../application/arbitrate-dispute';
import { counterCheckoutProposal, startCheckout } from '../application/checkout';
import { createOrder } from '../application/create-order';
import type { OrdersDeps } from '../application/deps';
import { cancelOrder, completeCheckout, confirmReceive } from '../application/party-moves';
import { payOrder } from '../application/pay-order';
import { callerOrders, partyHandoffRecords, partyOrderView } from '../application/read-orders';
import { openDispute } from '../application/open-dispute';
import { allDisputes, callerDisputes, partyDispute } from '../application/read-disputes';
import { rejectCheckout } from '../application/reject-checkout';
import { renewOrder } from '../application/renew-order';
import { blockRenter, ownBlocks, unblockRenter } from '../application/renter-blocks';
import { renterStanding } from '../application/renter-standing';
import { submitHandoff } from '../application/submit-handoff';

export function ordersRouteBindings(deps: OrdersDeps): RouteBinding[] {
  return [
    route(createOrderRoute, ({ body, identity }) => createOrder(deps, identity, body)),
    route(listOrders, ({ query, identity }) => callerOrders(deps, identity, query)),
    route(getOrder, ({ params, identity }) => partyOrderView(deps, identity, params.id)),
    route(payOrderRoute, ({ params, identity }) => payOrder(deps, identity, params.id)),
    route(renewOrderRoute, ({ params, body, identity }) => renewOrder(deps, identity, params.id, body.hours)),
    route(cancelOrderRoute, ({ params, body, identity }) => cancelOrder(deps, identity, params.id, body.reason ?? null)),
    route(submitHandoffRoute, ({ params, body, identity }) => submitHandoff(deps, identity, params.id, body)),
    route(listHandoffRecords, ({ params, identity }) => partyHandoffRecords(deps, identity, params.id)),
    route(confirmReceiveRoute, ({ params, identity }) => confirmReceive(deps, identity, params.id)),
    route(startCheckoutRoute, ({ params, body, identity }) => startCheckout(deps, identity, params.id, body)),
    route(confirmCheckout, ({ params, identity }) => completeCheckout(deps, identity, params.id, 'confirm_checkout')),
    route(counterCheckout, ({ params, body, identity }) => counterCheckoutProposal(deps, identity, params.id, body)),
    route(acceptCheckout, ({ params, identity }) => completeCheckout(deps, identity, params.id, 'accept_checkout')),
    route(rejectCheckoutRoute, ({ params, body, identity }) => rejectCheckout(deps, identity, params.id, body.reason)),
    route(openDisputeRoute, ({ params, body, identity }) => openDispute(deps, identity, params.id, body)),
    route(listDisputes, ({ query, identity }) => callerDisputes(deps, identity, query)),
    route(getDispute, ({ params, identity }) => partyDispute(deps, identity, params.id)),
    route(adminListOrders, ({ query }) => allOrders(deps, query)),
    route(adminGetOrder, ({ params }) => adminOrderDetail(deps, params.id)),
    route(adminListHandoffRecords, ({ params }) => adminHandoffRecords(deps, params.id)),
    route(adminRevealHandoffRecords, ({ params, identity, body }) => revealHandoffRecords(deps, identity, params.id, body.reason, body.request_id)),
    route(adminRequestReveal, ({ params, identity, body }) => requestReveal(deps, identity, params.id, body.reason)),
    route(adminListRevealRequests, ({ params }) => listRevealRequests(deps, params.id)),
    route(adminApproveReveal, ({ params, identity }) => approveReveal(deps, identity, params.id, params.requestId)),
    route(adminCloseOrder, ({ params, body, identity }) => adminEndOrder(deps, identity, params.id, 'admin_close', body)),
    route(adminMarkOrderAbnormal, ({ params, body, identity }) => adminEndOrder(deps, identity, params.id, 'admin_mark_abnormal', body)),
    route(adminListDisputes, ({ query }) => allDisputes(deps, query)),
    route(blockRenterRoute, ({ params, identity }) => blockRenter(deps, identity, params.user_id)),
    route(unblockRenterRoute, ({ params, identity }) => unblockRenter(deps, identity, params.user_id)),
    route(listRenterBlocks, ({ query, identity }) => ownBlocks(deps, identity, query)),
    route(adminRenterStanding, ({ params }) => renterStanding(deps, params.id)),
    route(arbitrateDisputeRoute, ({ params, body, identity }) => arbitrateDispute(deps, identity, params.id, body)),
  ];
}
