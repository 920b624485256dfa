import { IdParams, Page, PageQuery, ReasonBody, EmptyBody, Timestamp, Id, Money } from '../common';
import { z } from '../zod';
import { RentalHours } from './catalog';
import { defineRoute } from './route';
import type { ErrorStatus } from './route';

export const OrderStatus = z.enum([
  'pending_payment',
  'pending_handoff',
  'pending_receive',
  'in_use',
  'pending_checkout_confirm',
  'pending_correction_confirm',
  'disputed',
  'completed',
  'cancelled',
  'closed',
  'abnormal',
]);

export const DisputeType = z.enum(['handoff', 'usage', 'checkout']);
export const DisputeStatus = z.enum(['open', 'resolved']);
export const ArbitrationResult = z.enum(['complete', 'close', 'mark_abnormal']);
export const PartyRole = z.enum(['renter', 'owner']);

/** Amounts in fen; consumption + deposit_deduction + refund = amount paid, owner_income + platform_fee = consumption + deposit_deduction. */
export const Checkout = z
  .object({
    consumption: Money.openapi({ description: 'rent earned by the owner' }),
    deposit_deduction: Money,
    refund: Money.openapi({ description: 'back to the renter' }),
    owner_income: Money,
    platform_fee: Money,
    reason: z.string().nullable(),
    evidence_urls: z.array(z.string()),
  })
  .openapi('Checkout');

export const Order = z
  .object({
    id: Id,
    listing_id: Id,
    listing_title: z.string(),
    renter_id: Id,
    owner_id: Id,
    hours: RentalHours,
    hourly_price: Money,
    rent: Money.openapi({ description: 'hours × hourly_price, in fen' }),
    deposit: Money,
    amount: Money.openapi({ description: 'rent + deposit, in fen' }),
    status: OrderStatus,
    paid_at: Timestamp.nullable(),
    started_at: Timestamp.nullable(),
    ends_at: Timestamp.nullable(),
    checkout: Checkout.nullable(),
    dispute_id: Id.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deadline_at: Timestamp.nullable().openapi({
      description: 'when the timeout scan moves the order next, from the thresholds configured now (recomputed when they change); null when none applies',
    }),
  })
  .openapi('Order');

export const HandoffRecord = z
  .object({
    id: Id,
    order_id: Id,
    author_id: Id,
    author_role: PartyRole,
    content: z.string(),
    attachment_urls: z.array(z.string()),
    created_at: Timestamp,
  })
  .openapi('HandoffRecord');

export const Dispute = z
  .object({
    id: Id,
    order_id: Id,
    type: DisputeType,
    raised_by: Id,
    reason: z.string(),
    evidence_urls: z.array(z.string()),
    status: DisputeStatus,
    result: ArbitrationResult.nullable(),
    resolution_note: z.string().nullable(),
    created_at: Timestamp,
    resolved_at: Timestamp.nullable(),
  })
  .openapi('Dispute');

const HandoffRecords = z.object({ items: z.array(HandoffRecord) });

/** Keys returned by `POST /api/files/upload`; the service resolves them to URLs. */
const FileKeys = z.array(z.string().min(1).max(200)).max(9);
const OptionalReason = z.string().trim().min(1).max(500);

const IdempotencyHeaders = z.object({ 'idempotency-key': z.string().max(200).optional() });

/** What every order action's description ends with: the state-machine rules of CONTRACT §4. */
function moveDescription(text: string): string {
  return `${text} Any move the order's state does not allow is 409 INVALID_STATE; a move reserved to the other party is 403 FORBIDDEN; a caller who is not a party gets 404.`;
}

function orderErrors(...more: ErrorStatus[]): ErrorStatus[] {
  const all: ErrorStatus[] = [...more, 401, 403];
  return all.sort((a, b) => a - b);
}

// Disputes and the back office's order routes land with the next issue: 501 until then.
function pendingOrderErrors(...more: ErrorStatus[]): ErrorStatus[] {
  return orderErrors(...more, 501);
}

export const createOrder = defineRoute({
  id: 'createOrder',
  service: 'orders',
  method: 'post',
  path: '/api/orders',
  auth: 'user',
  summary: 'Create an order on an online listing',
  description: 'Title, hourly price and deposit are copied from the listing at this moment. The listing must be online and not rented (409 LISTING_UNAVAILABLE): at most one order per listing is active, so of renters racing for one listing exactly one wins. Renting one’s own listing is 403 FORBIDDEN; an unknown or malformed listing_id is 404. hours must lie within the listing’s min_hours..max_hours (400 VALIDATION_FAILED on hours). A frozen renter is 403 USER_FROZEN; while the system config order.require_realname is true, a renter without verified real name is 403 REALNAME_REQUIRED. deadline_at is when the unpaid order is cancelled (order.payment_timeout_minutes). Honours Idempotency-Key.',
  tags: ['orders'],
  headers: IdempotencyHeaders,
  body: z.object({ listing_id: z.string().min(1).max(100), hours: RentalHours }).strict(),
  success: { status: 201, description: 'the created order (pending_payment)', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const listOrders = defineRoute({
  id: 'listOrders',
  service: 'orders',
  method: 'get',
  path: '/api/orders',
  auth: 'user',
  summary: 'The caller’s orders, as renter or owner',
  description: 'role=renter: orders the caller rents; role=owner: orders on the caller’s listings; omitted: both. Newest first.',
  tags: ['orders'],
  query: PageQuery.extend({
    role: PartyRole.optional().openapi({ description: 'omitted: both' }),
    status: OrderStatus.optional(),
  }),
  success: { status: 200, description: 'orders, newest first', schema: Page(Order) },
  errors: orderErrors(400),
});

export const getOrder = defineRoute({
  id: 'getOrder',
  service: 'orders',
  method: 'get',
  path: '/api/orders/{id}',
  auth: 'user',
  summary: 'Order detail (parties only)',
  description: 'Only the renter and the owner see an order; anyone else gets 404.',
  tags: ['orders'],
  params: IdParams,
  success: { status: 200, description: 'the order', schema: Order },
  errors: orderErrors(404),
});

export const payOrder = defineRoute({
  id: 'payOrder',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/pay',
  auth: 'user',
  summary: 'Pay an order from the wallet balance',
  description: moveDescription('Renter only, in pending_payment. Moves amount (rent + deposit) from the renter’s wallet balance into the order’s escrow and the order to pending_handoff. 409 INSUFFICIENT_BALANCE when the balance is short (nothing changes); 503 UPSTREAM_UNAVAILABLE when the wallet cannot be reached (the order stays pending_payment; paying again is safe: an order is charged at most once). When the listing has stored account credentials (open uploads, or credentials its owner gave), they are handed over at once: the order moves on to pending_receive with a handoff record carrying them, written in the owner’s name (author_role owner, author_id the owner). Honours Idempotency-Key.'),
  tags: ['orders'],
  params: IdParams,
  headers: IdempotencyHeaders,
  body: EmptyBody,
  success: { status: 200, description: 'the order, now pending_handoff', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const cancelOrder = defineRoute({
  id: 'cancelOrder',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/cancel',
  auth: 'user',
  summary: 'Renter cancels before handoff; paid money goes back',
  description: moveDescription('Renter only, in pending_payment or pending_handoff. A paid order’s escrow goes back to the renter’s balance in full (the wallet refunds it on order.cancelled).'),
  tags: ['orders'],
  params: IdParams,
  body: z.object({ reason: OptionalReason.optional() }).strict(),
  success: { status: 200, description: 'the order, now cancelled', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const submitHandoff = defineRoute({
  id: 'submitHandoff',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/handoff',
  auth: 'user',
  summary: 'Submit handoff notes',
  description: moveDescription('The owner’s first note moves pending_handoff → pending_receive; afterwards either party may append notes while the order is active (pending_receive to disputed). content is stored encrypted and shown only to the two parties. attachment_keys must be files the caller uploaded (400 otherwise); both parties can then read them.'),
  tags: ['handoff'],
  params: IdParams,
  body: z.object({ content: z.string().trim().min(1).max(5000), attachment_keys: FileKeys.optional() }).strict(),
  success: { status: 201, description: 'the created handoff record', schema: HandoffRecord },
  errors: orderErrors(400, 404, 409),
});

export const listHandoffRecords = defineRoute({
  id: 'listHandoffRecords',
  service: 'orders',
  method: 'get',
  path: '/api/orders/{id}/handoff-records',
  auth: 'user',
  summary: 'Handoff records of an order (parties only), oldest first',
  description: 'Content is decrypted for the two parties only (anyone else: 404); every read is audited. The record of an automatic handoff of stored credentials has author_role owner and the owner’s id.',
  tags: ['handoff'],
  params: IdParams,
  success: { status: 200, description: 'all records', schema: HandoffRecords },
  errors: orderErrors(404),
});

export const confirmReceive = defineRoute({
  id: 'confirmReceive',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/confirm-receive',
  auth: 'user',
  summary: 'Renter confirms the account works; the rental clock starts',
  description: moveDescription('Renter only, in pending_receive. started_at is now and ends_at = started_at + hours; deadline_at = ends_at + order.checkout_grace_minutes, when checkout starts by itself with the full rent and no deduction.'),
  tags: ['orders'],
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the order, now in_use', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const startCheckout = defineRoute({
  id: 'startCheckout',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/checkout',
  auth: 'user',
  summary: 'Renter initiates checkout',
  description: moveDescription('Renter only, in in_use. consumption defaults to the rent for the hours used since started_at, rounded up to whole hours, at most the rent paid; above the rent is 400. deposit_deduction is 0. platform_fee = floor(consumption × platform.commission_rate_bps / 10000), owner_income = consumption + deposit_deduction − platform_fee, refund = amount − consumption − deposit_deduction.'),
  tags: ['checkout'],
  params: IdParams,
  body: z.object({ consumption: Money.optional(), reason: OptionalReason.optional() }).strict(),
  success: { status: 200, description: 'the order, now pending_checkout_confirm', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const confirmCheckout = defineRoute({
  id: 'confirmCheckout',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/checkout/confirm',
  auth: 'user',
  summary: 'Owner confirms the checkout; the order settles',
  description: moveDescription('Owner only, in pending_checkout_confirm: the order completes with the renter’s figures and the wallet pays them out.'),
  tags: ['checkout'],
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the order, now completed', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const counterCheckout = defineRoute({
  id: 'counterCheckout',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/checkout/counter',
  auth: 'user',
  summary: 'Owner corrects the checkout',
  description: moveDescription('Owner only, in pending_checkout_confirm. consumption omitted keeps the renter’s proposal; consumption above the rent or deposit_deduction above the deposit is 400. evidence_keys must be files the caller uploaded; both parties can then read them. The fee follows the same rule as at checkout.'),
  tags: ['checkout'],
  params: IdParams,
  body: z
    .object({
      consumption: Money.optional(),
      deposit_deduction: Money,
      reason: OptionalReason,
      evidence_keys: FileKeys.optional(),
    })
    .strict(),
  success: { status: 200, description: 'the order, now pending_correction_confirm', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const acceptCheckout = defineRoute({
  id: 'acceptCheckout',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/checkout/accept',
  auth: 'user',
  summary: 'Renter accepts the owner’s correction; the order settles',
  description: moveDescription('Renter only, in pending_correction_confirm: the order completes with the owner’s figures.'),
  tags: ['checkout'],
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the order, now completed', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const rejectCheckout = defineRoute({
  id: 'rejectCheckout',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/checkout/reject',
  auth: 'user',
  summary: 'Renter rejects the owner’s correction; a checkout dispute opens',
  description: moveDescription('Renter only, in pending_correction_confirm. Opens a dispute of type checkout (its id in dispute_id) for the back office to arbitrate. Added to the specification’s paths (CONTRACT §4).'),
  tags: ['checkout'],
  params: IdParams,
  body: ReasonBody,
  success: { status: 200, description: 'the order, now disputed', schema: Order },
  errors: orderErrors(400, 404, 409),
});

export const openDispute = defineRoute({
  id: 'openDispute',
  service: 'orders',
  method: 'post',
  path: '/api/orders/{id}/dispute',
  auth: 'user',
  summary: 'Either party raises a dispute; its type follows from the order’s state',
  tags: ['disputes'],
  params: IdParams,
  body: z.object({ reason: OptionalReason, evidence_keys: FileKeys.optional() }).strict(),
  success: { status: 201, description: 'the opened dispute; the order is now disputed', schema: Dispute },
  errors: pendingOrderErrors(400, 404, 409),
});

export const listDisputes = defineRoute({
  id: 'listDisputes',
  service: 'orders',
  method: 'get',
  path: '/api/disputes',
  auth: 'user',
  summary: 'Disputes on the caller’s orders',
  tags: ['disputes'],
  query: PageQuery.extend({ status: DisputeStatus.optional() }),
  success: { status: 200, description: 'disputes, newest first', schema: Page(Dispute) },
  errors: pendingOrderErrors(400),
});

export const getDispute = defineRoute({
  id: 'getDispute',
  service: 'orders',
  method: 'get',
  path: '/api/disputes/{id}',
  auth: 'user',
  summary: 'Dispute detail (parties of its order only)',
  tags: ['disputes'],
  params: IdParams,
  success: { status: 200, description: 'the dispute', schema: Dispute },
  errors: pendingOrderErrors(404),
});

export const adminListOrders = defineRoute({
  id: 'adminListOrders',
  service: 'orders',
  method: 'get',
  path: '/api/admin/orders',
  auth: 'admin',
  summary: 'List all orders',
  tags: ['admin-orders'],
  query: PageQuery.extend({
    status: OrderStatus.optional(),
    renter_id: z.string().max(100).optional(),
    owner_id: z.string().max(100).optional(),
    listing_id: z.string().max(100).optional(),
  }),
  success: { status: 200, description: 'orders, newest first', schema: Page(Order) },
  errors: pendingOrderErrors(400),
});

export const adminGetOrder = defineRoute({
  id: 'adminGetOrder',
  service: 'orders',
  method: 'get',
  path: '/api/admin/orders/{id}',
  auth: 'admin',
  summary: 'Order detail',
  tags: ['admin-orders'],
  params: IdParams,
  success: { status: 200, description: 'the order', schema: Order },
  errors: pendingOrderErrors(404),
});

export const adminListHandoffRecords = defineRoute({
  id: 'adminListHandoffRecords',
  service: 'orders',
  method: 'get',
  path: '/api/admin/orders/{id}/handoff-records',
  auth: 'admin',
  summary: 'Handoff records of an order, oldest first (the read is audited)',
  tags: ['admin-orders'],
  params: IdParams,
  success: { status: 200, description: 'all records', schema: HandoffRecords },
  errors: pendingOrderErrors(404),
});

export const adminCloseOrder = defineRoute({
  id: 'adminCloseOrder',
  service: 'orders',
  method: 'post',
  path: '/api/admin/orders/{id}/close',
  auth: 'admin',
  summary: 'Close a non-terminal or abnormal order; escrow goes back to the renter',
  tags: ['admin-orders'],
  params: IdParams,
  body: ReasonBody,
  success: { status: 200, description: 'the order, now closed', schema: Order },
  errors: pendingOrderErrors(400, 404, 409),
});

export const adminMarkOrderAbnormal = defineRoute({
  id: 'adminMarkOrderAbnormal',
  service: 'orders',
  method: 'post',
  path: '/api/admin/orders/{id}/mark-abnormal',
  auth: 'admin',
  summary: 'Freeze a non-terminal order for manual handling; escrow stays held',
  tags: ['admin-orders'],
  params: IdParams,
  body: ReasonBody,
  success: { status: 200, description: 'the order, now abnormal', schema: Order },
  errors: pendingOrderErrors(400, 404, 409),
});

export const adminListDisputes = defineRoute({
  id: 'adminListDisputes',
  service: 'orders',
  method: 'get',
  path: '/api/admin/disputes',
  auth: 'admin',
  summary: 'List all disputes',
  tags: ['admin-disputes'],
  query: PageQuery.extend({
    status: DisputeStatus.optional(),
    type: DisputeType.optional(),
    order_id: z.string().max(100).optional(),
  }),
  success: { status: 200, description: 'disputes, newest first', schema: Page(Dispute) },
  errors: pendingOrderErrors(400),
});

export const ArbitrateBody = z
  .object({
    result: ArbitrationResult,
    note: z.string().trim().min(1).max(1000),
    breakdown: z
      .object({ consumption: Money, deposit_deduction: Money })
      .strict()
      .optional()
      .openapi({ description: 'for complete and close; refund, owner income and platform fee follow from it' }),
  })
  .strict()
  .refine((b) => b.breakdown === undefined || b.result !== 'mark_abnormal', {
    message: 'breakdown applies to complete and close only',
    path: ['breakdown'],
  })
  .openapi('ArbitrateBody');

export const arbitrateDispute = defineRoute({
  id: 'arbitrateDispute',
  service: 'orders',
  method: 'post',
  path: '/api/admin/disputes/{id}/arbitrate',
  auth: 'admin',
  summary: 'Arbitrate an open dispute: complete, close or mark the order abnormal',
  description: 'Without a breakdown, complete settles per the order’s checkout (the full rent and no deduction when there is none) and close returns all escrow to the renter.',
  tags: ['admin-disputes'],
  params: IdParams,
  body: ArbitrateBody,
  success: { status: 200, description: 'the resolved dispute', schema: Dispute },
  errors: pendingOrderErrors(400, 404, 409),
});

export const ordersRoutes = [
  createOrder,
  listOrders,
  getOrder,
  payOrder,
  cancelOrder,
  submitHandoff,
  listHandoffRecords,
  confirmReceive,
  startCheckout,
  confirmCheckout,
  counterCheckout,
  acceptCheckout,
  rejectCheckout,
  openDispute,
  listDisputes,
  getDispute,
  adminListOrders,
  adminGetOrder,
  adminListHandoffRecords,
  adminCloseOrder,
  adminMarkOrderAbnormal,
  adminListDisputes,
  arbitrateDispute,
];
