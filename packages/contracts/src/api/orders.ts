import { IdParams, IdempotencyHeaders, Page, PageQuery, ReasonBody, EmptyBody, Timestamp, Id, Money } from '../common';
import { orNull, z } from '../zod';
import { RentalHours } from './catalog';
import { LedgerEntry } from './wallet';
import { RenterRecord } from './ratings';
import { routesOf } from './route';
import { withTokenErrors } from './statuses';
import { changeById } from './change-by-id';

const orderRoute = routesOf('orders', { tags: ['orders'] });
const handoffRoute = routesOf('orders', { tags: ['handoff'] });
const checkoutRoute = routesOf('orders', { tags: ['checkout'] });
const disputeRoute = routesOf('orders', { tags: ['disputes'] });
const adminOrderRoute = routesOf('orders', { tags: ['admin-orders'] });
const adminDisputeRoute = routesOf('orders', { tags: ['admin-disputes'] });

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

/**
 * Amounts in fen; consumption + overtime_fee + deposit_deduction + refund = amount paid,
 * owner_income + platform_fee = consumption + overtime_fee + deposit_deduction.
 */
export const Checkout = z
  .object({
    consumption: Money.openapi({ description: 'rent earned by the owner' }),
    overtime_minutes: z.number().int().min(0).openapi({
      description: 'started minutes charged past ends_at after the free order.grace_minutes (docs/rules.md §4 Overtime)',
    }),
    overtime_fee: Money.openapi({
      description: 'floor(overtime_minutes × hourly_price / 60), at most the deposit; taken from the deposit and earned by the owner as rent',
    }),
    deposit_deduction: Money.openapi({ description: 'at most what the deposit holds after the overtime fee' }),
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
    checkout: orNull(Checkout),
    dispute_id: Id.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deadline_at: Timestamp.nullable().openapi({
      description: 'when the timeout scan moves the order next, from the thresholds configured now (recomputed when they change); null when none applies',
    }),
    renter_record: RenterRecord.optional().openapi({ description: 'the renter’s ratings and completed orders; only in the listing owner’s view' }),
  })
  .openapi('Order');

export const HandoffRecord = z
  .object({
    id: Id,
    order_id: Id,
    author_id: Id,
    author_role: PartyRole,
    content: z.string().nullable().openapi({ description: 'null when withheld from the caller' }),
    attachment_urls: z.array(z.string()).openapi({ description: 'empty when the content is withheld' }),
    withheld: z.boolean().openapi({
      description:
        'true when the caller may see that the handoff happened and when, not what it said: the renter once the order has ended ' +
        '(completed, cancelled or closed), and the back office outside a reveal (ADR 0033)',
    }),
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

export const OrderPayment = z
  .object({
    id: Id.openapi({ description: 'the wallet payment that moved the amount from the renter’s balance into escrow' }),
    amount: Money,
    paid_at: Timestamp,
  })
  .openapi('OrderPayment');

export const OrderEscrowView = z
  .object({
    charged: Money.openapi({ description: 'moved into escrow when the order was paid' }),
    held: Money.openapi({ description: 'still in escrow (0 once paid out)' }),
    status: z.enum(['held', 'settled', 'refunded']),
    ended_at: Timestamp.nullable(),
  })
  .openapi('OrderEscrow');

export const OrderRenewal = z
  .object({
    id: Id,
    hours: RentalHours.openapi({ description: 'hours added' }),
    rent: Money.openapi({ description: 'hours × the order’s hourly_price, in fen, charged into escrow' }),
    previous_ends_at: Timestamp,
    ends_at: Timestamp,
    renewed_at: Timestamp,
  })
  .openapi('OrderRenewal');

export const AdminOrderDetail = Order.extend({
  dispute: orNull(Dispute).openapi({ description: 'the order’s latest dispute' }),
  payments: z.array(OrderPayment).openapi({ description: 'the payment of the order (none while unpaid)' }),
  escrow: orNull(OrderEscrowView).openapi({ description: 'null when the wallet never charged the order' }),
  ledger_entries: z.array(LedgerEntry).openapi({ description: 'the users’ ledger entries of this order, oldest first' }),
  renewals: z.array(OrderRenewal).openapi({ description: 'the renewals charged on the order, oldest first' }),
}).openapi('AdminOrderDetail');

/** Keys returned by `POST /api/files/upload`; the service resolves them to URLs. */
const FileKeys = z.array(z.string().min(1).max(200)).max(9);
const OptionalReason = z.string().trim().min(1).max(500);

/**
 * What every party's move of an order shares: the order named by its id, the statuses a move
 * answers, and its description, the move's own rules followed by the state-machine rules of
 * docs/rules.md §4.
 */
function orderMove(rules: string) {
  return {
    description: `${rules} Any move the order's state does not allow is 409 INVALID_STATE; a move reserved to the other party is 403 FORBIDDEN; a caller who is not a party gets 404.`,
    params: IdParams,
    errors: withTokenErrors(400, 404, 409),
  };
}

/** What close and arbitration pay out (docs/rules.md §4 as decided here; the wallet settles from these figures). */
const ARBITRATION_MONEY =
  'complete: the order completes with the breakdown given, else with the order’s checkout, else the full rent and no deduction. ' +
  'close without a breakdown: the whole escrow goes back to the renter. close with a breakdown: the arbitrated split — consumption + ' +
  'deposit_deduction go to the owner minus the platform fee (floor(consumption × platform.commission_rate_bps / 10000), as at checkout), ' +
  'a breakdown replacing the checkout’s figures overtime included (the arbitrator counts any overtime owed in the deduction), ' +
  'the rest back to the renter — and the order ends closed, not completed. mark_abnormal: the escrow stays held; the order can later be ' +
  'closed by POST /api/admin/orders/{id}/close (escrow → renter). A breakdown must hold every checkout invariant (consumption ≤ rent, ' +
  'deposit_deduction ≤ deposit; 400 VALIDATION_FAILED naming breakdown.consumption or breakdown.deposit_deduction otherwise). The applied ' +
  'figures are stored as the order’s checkout (reason: the note).';

export const createOrder = orderRoute('post /api/orders', { id: 'createOrder', auth: 'user',
  summary: 'Create an order on an online listing',
  description: 'Title, hourly price and deposit are copied from the listing at this moment. The listing must be online and not rented (409 LISTING_UNAVAILABLE), and not waiting for its owner to change the password after the last rental (409 LISTING_AWAITING_ROTATION, ADR 0066): at most one order per listing is active, so of renters racing for one listing exactly one wins. Renting one’s own listing is 403 FORBIDDEN; an unknown or malformed listing_id is 404. hours must lie within the listing’s min_hours..max_hours (400 VALIDATION_FAILED on hours). A frozen renter is 403 USER_FROZEN; while the system config order.require_realname is true, a renter without verified real name is 403 REALNAME_REQUIRED. deadline_at is when the unpaid order is cancelled (order.payment_timeout_minutes). Honours Idempotency-Key.',
  headers: IdempotencyHeaders,
  body: z.object({ listing_id: z.string().min(1).max(100), hours: RentalHours }).strict(),
  success: { status: 201, description: 'the created order (pending_payment)', schema: Order }, errors: withTokenErrors(400, 404, 409),
});

export const listOrders = orderRoute('get /api/orders', { id: 'listOrders', auth: 'user',
  summary: 'The caller’s orders, as renter or owner',
  description: 'role=renter: orders the caller rents; role=owner: orders on the caller’s listings; omitted: both. Newest first.',
  query: PageQuery.extend({
    role: PartyRole.optional().openapi({ description: 'omitted: both' }),
    status: OrderStatus.optional(),
  }),
  success: { status: 200, description: 'orders, newest first', schema: Page(Order) }, errors: withTokenErrors(400),
});

export const getOrder = orderRoute('get /api/orders/{id}', { id: 'getOrder', auth: 'user',
  summary: 'Order detail (parties only)',
  description: 'Only the renter and the owner see an order; anyone else gets 404.',
  params: IdParams,
  success: { status: 200, description: 'the order', schema: Order }, errors: withTokenErrors(404),
});

export const payOrder = orderRoute('post /api/orders/{id}/pay', { id: 'payOrder', auth: 'user',
  summary: 'Pay an order from the wallet balance',
  ...orderMove('Renter only, in pending_payment. Moves amount (rent + deposit) from the renter’s wallet balance into the order’s escrow and the order to pending_handoff. 409 INSUFFICIENT_BALANCE when the balance is short (nothing changes); 503 UPSTREAM_UNAVAILABLE when the wallet cannot be reached (the order stays pending_payment; paying again is safe: an order is charged at most once). When the listing has stored account credentials (open uploads, or credentials its owner gave), they are handed over at once: the order moves on to pending_receive with a handoff record carrying them, written in the owner’s name (author_role owner, author_id the owner). Honours Idempotency-Key.'),
  headers: IdempotencyHeaders,
  body: EmptyBody,
  success: { status: 200, description: 'the order, now pending_handoff', schema: Order },
});

export const renewOrder = orderRoute('post /api/orders/{id}/renew', { id: 'renewOrder', auth: 'user',
  summary: 'Extend an order in use by whole hours',
  ...orderMove(
    'Renter only, in in_use. Charges hours × the order’s hourly_price (the deposit is not charged again) from the renter’s wallet balance into the order’s escrow and moves ends_at later by the hours; the order’s hours, rent and amount become the renewed totals, so checkout and settlement count the whole rent. ' +
      'The total hours stay within the listing’s max_hours (720 when it has none): 409 RENEWAL_OVER_MAX_HOURS. 409 RENEWAL_NOT_ALLOWED when the owner switched renewal off for the listing (allow_renewal false); 409 LISTING_UNAVAILABLE when the listing is not online; ' +
      '409 RENEWAL_TOO_LATE when less than order.renewal_min_remaining_minutes remain before ends_at; 409 INSUFFICIENT_BALANCE when the balance is short (nothing changes); 409 RENEWAL_PENDING while another renewal’s charge is under way; ' +
      '503 UPSTREAM_UNAVAILABLE when the wallet cannot be reached (renewing again is safe once the pending charge is settled: the reconciler asks the wallet). Both parties are notified (order.renewed). Honours Idempotency-Key.',
  ),
  headers: IdempotencyHeaders,
  body: z.object({ hours: RentalHours }).strict(),
  success: { status: 200, description: 'the order, ends_at moved', schema: Order },
});

export const cancelOrder = orderRoute('post /api/orders/{id}/cancel', { id: 'cancelOrder', auth: 'user',
  summary: 'Renter cancels before handoff; paid money goes back',
  ...orderMove('Renter only, in pending_payment or pending_handoff. A paid order’s escrow goes back to the renter’s balance in full (the wallet refunds it on order.cancelled).'),
  body: z.object({ reason: OptionalReason.optional() }).strict(),
  success: { status: 200, description: 'the order, now cancelled', schema: Order },
});

export const submitHandoff = handoffRoute('post /api/orders/{id}/handoff', { id: 'submitHandoff', auth: 'user',
  summary: 'Submit handoff notes',
  ...orderMove('The owner’s first note moves pending_handoff → pending_receive; afterwards either party may append notes while the order is active (pending_receive to disputed). content is stored encrypted and shown only to the two parties. attachment_keys must be files the caller uploaded (400 otherwise); both parties can then read them.'),
  body: z.object({ content: z.string().trim().min(1).max(5000), attachment_keys: FileKeys.optional() }).strict(),
  success: { status: 201, description: 'the created handoff record', schema: HandoffRecord },
});

export const listHandoffRecords = handoffRoute('get /api/orders/{id}/handoff-records', { id: 'listHandoffRecords', auth: 'user',
  summary: 'Handoff records of an order (parties only), oldest first',
  description: 'Content is decrypted for the two parties only (anyone else: 404); every read is audited. The record of an automatic handoff of stored credentials has author_role owner and the owner’s id. Once the order has ended (completed, cancelled, closed) the renter sees that each handoff happened and when, never its content (`withheld`); the owner still sees what they wrote.',
  params: IdParams,
  success: { status: 200, description: 'all records', schema: HandoffRecords }, errors: withTokenErrors(404),
});

export const confirmReceive = orderRoute('post /api/orders/{id}/confirm-receive', { id: 'confirmReceive', auth: 'user',
  summary: 'Renter confirms the account works; the rental clock starts',
  ...orderMove('Renter only, in pending_receive. started_at is now and ends_at = started_at + hours; deadline_at = ends_at + order.checkout_grace_minutes, when checkout starts by itself with the full rent and no deduction.'),
  body: EmptyBody,
  success: { status: 200, description: 'the order, now in_use', schema: Order },
});

export const startCheckout = checkoutRoute('post /api/orders/{id}/checkout', { id: 'startCheckout', auth: 'user',
  summary: 'Renter initiates checkout',
  ...orderMove('Renter only, in in_use. consumption defaults to the rent for the hours used since started_at, rounded up to whole hours, at most the rent paid; above the rent is 400. deposit_deduction is 0. Past ends_at the checkout also charges overtime: overtime_minutes are the started minutes past ends_at beyond the free order.grace_minutes, overtime_fee = floor(overtime_minutes × hourly_price / 60), at most the deposit (docs/rules.md §4 Overtime). platform_fee = floor((consumption + overtime_fee) × platform.commission_rate_bps / 10000), owner_income = consumption + overtime_fee + deposit_deduction − platform_fee, refund = amount − consumption − overtime_fee − deposit_deduction. If the owner neither confirms nor counters within order.checkout_confirm_timeout_minutes, the order completes with the renter’s figures, except that the consumption is never less than the rent for the hours actually used from started_at to this checkout (rounded up to whole hours at the listed hourly price, at most the rent; ADR 0029): a proposal of 0 after a rental that ran its full time completes at the full rent.'),
  body: z.object({ consumption: Money.optional(), reason: OptionalReason.optional() }).strict(),
  success: { status: 200, description: 'the order, now pending_checkout_confirm', schema: Order },
});

export const confirmCheckout = checkoutRoute('post /api/orders/{id}/checkout/confirm', { id: 'confirmCheckout', auth: 'user',
  summary: 'Owner confirms the checkout; the order settles',
  ...orderMove('Owner only, in pending_checkout_confirm: the order completes with the renter’s figures and the wallet pays them out.'),
  body: EmptyBody,
  success: { status: 200, description: 'the order, now completed', schema: Order },
});

export const counterCheckout = checkoutRoute('post /api/orders/{id}/checkout/counter', { id: 'counterCheckout', auth: 'user',
  summary: 'Owner corrects the checkout',
  ...orderMove('Owner only, in pending_checkout_confirm. consumption omitted keeps the renter’s proposal; the checkout’s overtime figures stay as charged; consumption above the rent or deposit_deduction above what the deposit holds after the overtime fee is 400. evidence_keys must be files the caller uploaded; both parties can then read them. The fee follows the same rule as at checkout.'),
  body: z
    .object({
      consumption: Money.optional(),
      deposit_deduction: Money,
      reason: OptionalReason,
      evidence_keys: FileKeys.optional(),
    })
    .strict(),
  success: { status: 200, description: 'the order, now pending_correction_confirm', schema: Order },
});

export const acceptCheckout = checkoutRoute('post /api/orders/{id}/checkout/accept', { id: 'acceptCheckout', auth: 'user',
  summary: 'Renter accepts the owner’s correction; the order settles',
  ...orderMove('Renter only, in pending_correction_confirm: the order completes with the owner’s figures.'),
  body: EmptyBody,
  success: { status: 200, description: 'the order, now completed', schema: Order },
});

export const rejectCheckout = checkoutRoute('post /api/orders/{id}/checkout/reject', { id: 'rejectCheckout', auth: 'user',
  summary: 'Renter rejects the owner’s correction; a checkout dispute opens',
  ...orderMove('Renter only, in pending_correction_confirm. Opens a dispute of type checkout (its id in dispute_id) for the back office to arbitrate. Added to the specification’s paths.'),
  body: ReasonBody,
  success: { status: 200, description: 'the order, now disputed', schema: Order },
});

export const openDispute = disputeRoute('post /api/orders/{id}/dispute', { id: 'openDispute', auth: 'user',
  summary: 'Either party raises a dispute; its type follows from the order’s state',
  ...orderMove('Either party, in pending_receive (type handoff), in_use (usage), pending_checkout_confirm or pending_correction_confirm (checkout). The order moves to disputed and waits for arbitration; its dispute_id names the dispute. An order has at most one open dispute (a second is 409 INVALID_STATE). evidence_keys must be files the caller uploaded (400 otherwise); both parties can then read them.'),
  body: z.object({ reason: OptionalReason, evidence_keys: FileKeys.optional() }).strict(),
  success: { status: 201, description: 'the opened dispute; the order is now disputed', schema: Dispute },
});

export const listDisputes = disputeRoute('get /api/disputes', { id: 'listDisputes', auth: 'user',
  summary: 'Disputes on the caller’s orders',
  description: 'Disputes on orders the caller rents or owns, whoever raised them. Newest first.',
  query: PageQuery.extend({ status: DisputeStatus.optional() }),
  success: { status: 200, description: 'disputes, newest first', schema: Page(Dispute) }, errors: withTokenErrors(400),
});

export const getDispute = disputeRoute('get /api/disputes/{id}', { id: 'getDispute', auth: 'user',
  summary: 'Dispute detail (parties of its order only)',
  description: 'Only the renter and the owner of the disputed order see it; anyone else gets 404. Its evidence_urls are readable by both.',
  params: IdParams,
  success: { status: 200, description: 'the dispute', schema: Dispute }, errors: withTokenErrors(404),
});

export const adminListOrders = adminOrderRoute('get /api/admin/orders', { id: 'adminListOrders', auth: 'admin', permission: 'orders.read',
  summary: 'List all orders',
  description: 'Every filter narrows the list; an id that is no order’s matches nothing. created_from/created_to bound created_at (from inclusive, to exclusive).',
  query: PageQuery.extend({
    status: OrderStatus.optional(),
    renter_id: z.string().max(100).optional(),
    owner_id: z.string().max(100).optional(),
    listing_id: z.string().max(100).optional(),
    created_from: z.iso.datetime({ offset: true }).optional().openapi({ description: 'created at or after' }),
    created_to: z.iso.datetime({ offset: true }).optional().openapi({ description: 'created before' }),
  }),
  success: { status: 200, description: 'orders, newest first', schema: Page(Order) }, errors: withTokenErrors(400),
});

export const adminGetOrder = adminOrderRoute('get /api/admin/orders/{id}', { id: 'adminGetOrder', auth: 'admin', permission: 'orders.read',
  summary: 'Order detail with its dispute and its money',
  description: 'The order (its checkout included), its latest dispute, and from the wallet what was charged into its escrow, what the escrow holds, and the ledger entries of the order. 503 UPSTREAM_UNAVAILABLE when the wallet cannot be reached.',
  params: IdParams,
  success: { status: 200, description: 'the order', schema: AdminOrderDetail }, errors: withTokenErrors(404),
});

export const adminListHandoffRecords = adminOrderRoute('get /api/admin/orders/{id}/handoff-records', { id: 'adminListHandoffRecords', auth: 'admin', permission: 'orders.read',
  summary: 'Handoff records of an order, oldest first, content withheld',
  description: 'Who handed over what when, without the content (`withheld`): the credentials are shown only to the two parties, and to the back office only through `POST /api/admin/orders/{id}/handoff-records/reveal`.',
  params: IdParams,
  success: { status: 200, description: 'all records, content withheld', schema: HandoffRecords }, errors: withTokenErrors(404),
});

const ExpectedStatus = OrderStatus.optional().openapi({
  description: 'the state the admin saw and decided on; 409 ORDER_CHANGED when the order is no longer in it',
});

export const AdminCloseOrderBody = z
  .object({
    reason: z.string().trim().min(1).max(500),
    expected_status: ExpectedStatus,
    breakdown: z
      .object({ consumption: Money, deposit_deduction: Money })
      .strict()
      .optional()
      .openapi({
        description:
          'a paid order only: split the escrow as a checkout would (consumption + deposit_deduction to the owner less the platform fee at the ' +
          'order’s frozen rate, the rest to the renter); without it everything goes back to the renter',
      }),
  })
  .strict()
  .openapi('AdminCloseOrderBody');

export const AdminMarkAbnormalBody = z
  .object({ reason: z.string().trim().min(1).max(500), expected_status: ExpectedStatus })
  .strict()
  .openapi('AdminMarkAbnormalBody');

export const RevealBody = z
  .object({
    reason: z.string().trim().min(1).max(500),
    request_id: Id.optional().openapi({ description: 'an approved reveal request of the caller for this order, needed when the order has no open dispute' }),
  })
  .strict()
  .openapi('RevealBody');

export const adminRevealHandoffRecords = adminOrderRoute('post /api/admin/orders/{id}/handoff-records/reveal', { id: 'adminRevealHandoffRecords', auth: 'admin', permission: 'handoffs.reveal',
  summary: 'Reveal the handoff content of an order in dispute or abnormal, with a stated reason (audited)',
  description:
    'For settling a dispute: only while the order is `disputed` or `abnormal` (`409 INVALID_STATE` otherwise), with a `reason` ' +
    '(1 to 500 characters). With an open dispute on the order the admin reveals alone; without one (an order held abnormal) ' +
    'the reveal needs `request_id`, a reveal request of the caller that another admin approved, and uses it up ' +
    '(`409 REVEAL_APPROVAL_REQUIRED` without it, or when it is not approved, not the caller\'s, of another order or used). ' +
    'Every reveal writes an audit entry naming the admin, the order and the reason; a refused one too.',
  ...changeById(RevealBody, { description: 'all records with their content', schema: HandoffRecords }),
});

export const RevealRequestStatus = z.enum(['pending', 'approved', 'used']).openapi('RevealRequestStatus');

export const RevealRequest = z
  .object({
    id: Id,
    order_id: Id,
    requested_by: Id,
    reason: z.string(),
    status: RevealRequestStatus,
    approved_by: orNull(Id),
    approved_at: orNull(Timestamp),
    used_at: orNull(Timestamp),
    created_at: Timestamp,
  })
  .openapi('RevealRequest');

export const RevealRequestParams = z.object({ id: z.string().max(100), requestId: z.string().max(100) }).strict();

export const adminRequestReveal = adminOrderRoute('post /api/admin/orders/{id}/handoff-records/reveal-requests', { id: 'adminRequestReveal', auth: 'admin', permission: 'handoffs.reveal',
  summary: 'Ask another admin to approve revealing the handoff content of an order without an open dispute (audited)',
  description:
    'Only while the order is `disputed` or `abnormal` (`409 INVALID_STATE` otherwise). Another admin with `handoffs.reveal` ' +
    'approves it; the requester then reveals with its id, once.',
  params: IdParams,
  body: ReasonBody,
  success: { status: 201, description: 'the request, pending', schema: RevealRequest }, errors: withTokenErrors(400, 404, 409),
});

export const adminListRevealRequests = adminOrderRoute('get /api/admin/orders/{id}/handoff-records/reveal-requests', { id: 'adminListRevealRequests', auth: 'admin', permission: 'handoffs.reveal',
  summary: 'The reveal requests of an order, newest first',
  params: IdParams,
  success: { status: 200, description: 'every reveal request of the order', schema: z.object({ items: z.array(RevealRequest) }) }, errors: withTokenErrors(400, 404),
});

export const adminApproveReveal = adminOrderRoute('post /api/admin/orders/{id}/handoff-records/reveal-requests/{requestId}/approve', { id: 'adminApproveReveal', auth: 'admin', permission: 'handoffs.reveal',
  summary: 'Approve another admin\'s reveal request (audited)',
  description:
    'Neither the requester nor the admin who marked the order abnormal may approve (`403 REVEAL_APPROVER_INVOLVED`); ' +
    'a request already approved or used, or of an order no longer `disputed` or `abnormal`, is `409 INVALID_STATE`. ' +
    'Of two admins approving at once exactly one wins.',
  params: RevealRequestParams,
  body: EmptyBody,
  success: { status: 200, description: 'the request, approved', schema: RevealRequest }, errors: withTokenErrors(400, 404, 409),
});

export const adminCloseOrder = adminOrderRoute('post /api/admin/orders/{id}/close', { id: 'adminCloseOrder', auth: 'admin', permission: 'orders.manage',
  summary: 'Close a non-terminal or abnormal order; escrow back to the renter, or split by a breakdown',
  description:
    'Allowed in every state but completed, cancelled and closed (409 INVALID_STATE there). Without a breakdown whatever the escrow holds goes back to the renter; with one (a paid order only, 409 INVALID_STATE otherwise) it is split as the breakdown says and the figures are stored as the order’s checkout. A breakdown must hold every checkout invariant (400 VALIDATION_FAILED naming breakdown.consumption or breakdown.deposit_deduction). An open dispute of the order is resolved with result close and the reason as its note. Of two admins deciding one order at once exactly one wins: a decision that waited for another move of the order (the order changed between this request reading it and locking it) is refused with 409 ORDER_CHANGED, and so is one whose expected_status (the state the admin decided on) is no longer the order’s. An unpaid order whose charge outcome is not known yet is refused with 409 CHARGE_PENDING: the charge may still land, and the decision can be made once it is recorded or has lapsed (within the charge window). Audited.',
  ...changeById(AdminCloseOrderBody, { description: 'the order, now closed', schema: Order }),
});

export const adminMarkOrderAbnormal = adminOrderRoute('post /api/admin/orders/{id}/mark-abnormal', { id: 'adminMarkOrderAbnormal', auth: 'admin', permission: 'orders.manage',
  summary: 'Freeze a non-terminal order for manual handling; escrow stays held',
  description:
    'Allowed in every state but completed, cancelled, closed and abnormal (409 INVALID_STATE there). The escrow stays held until the order is closed. An open dispute of the order is resolved with result mark_abnormal and the reason as its note. Of two admins deciding one order at once exactly one wins: a decision that waited for another move of the order (the order changed between this request reading it and locking it) is refused with 409 ORDER_CHANGED, and so is one whose expected_status (the state the admin decided on) is no longer the order’s. An unpaid order whose charge outcome is not known yet is refused with 409 CHARGE_PENDING: the charge may still land, and the decision can be made once it is recorded or has lapsed (within the charge window). Audited.',
  ...changeById(AdminMarkAbnormalBody, { description: 'the order, now abnormal', schema: Order }),
});

export const adminListDisputes = adminDisputeRoute('get /api/admin/disputes', { id: 'adminListDisputes', auth: 'admin', permission: 'disputes.read',
  summary: 'List all disputes',
  description: 'Newest first; an order_id that is no order’s matches nothing.',
  query: PageQuery.extend({
    status: DisputeStatus.optional(),
    type: DisputeType.optional(),
    order_id: z.string().max(100).optional(),
  }),
  success: { status: 200, description: 'disputes, newest first', schema: Page(Dispute) }, errors: withTokenErrors(400),
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

export const arbitrateDispute = adminDisputeRoute('post /api/admin/disputes/{id}/arbitrate', { id: 'arbitrateDispute', auth: 'admin', permission: 'disputes.arbitrate',
  summary: 'Arbitrate an open dispute: complete, close or mark the order abnormal',
  description: `Only an open dispute (409 INVALID_STATE once resolved: of two admins arbitrating at once exactly one wins). The dispute becomes resolved with result, resolution_note and resolved_at; the order completes, closes or turns abnormal in the same transaction. ${ARBITRATION_MONEY}`,
  ...changeById(ArbitrateBody, { description: 'the resolved dispute', schema: Dispute }),
});

export const RenterBlock = z
  .object({
    user_id: Id.openapi({ description: 'the blocked renter' }),
    created_at: Timestamp,
  })
  .openapi('RenterBlock');

const UserIdParams = z.object({ user_id: z.string().min(1).max(100) });

export const blockRenter = orderRoute('post /api/seller/blocks/{user_id}', { id: 'blockRenter', auth: 'user',
  summary: 'Block a renter from the caller’s listings',
  description:
    'The renter can no longer order any of the caller’s listings: POST /api/orders answers 403 LISTING_UNAVAILABLE_TO_YOU, which does not say who blocked them or why. Orders already running are not touched. Blocking again answers the block as it stands (200). An unknown or malformed user id is 404; blocking oneself is 403 FORBIDDEN. Audited.',
  params: UserIdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the block', schema: RenterBlock }, errors: withTokenErrors(400, 404),
});

export const unblockRenter = orderRoute('delete /api/seller/blocks/{user_id}', { id: 'unblockRenter', auth: 'user',
  summary: 'Lift a block',
  description: 'The renter may order the caller’s listings again. 404 when the caller has not blocked this user. Audited.',
  params: UserIdParams,
  success: { status: 204, description: 'lifted' }, errors: withTokenErrors(404),
});

export const listRenterBlocks = orderRoute('get /api/seller/blocks', { id: 'listRenterBlocks', auth: 'user',
  summary: 'The renters the caller has blocked',
  description: 'Newest first.',
  query: PageQuery,
  success: { status: 200, description: 'blocks, newest first', schema: Page(RenterBlock) }, errors: withTokenErrors(400),
});

export const RenterStanding = z
  .object({
    user_id: Id,
    completed_orders: z.number().int().min(0),
    active_orders: z.number().int().min(0),
    orders_today: z.number().int().min(0).openapi({ description: 'orders created as renter since 00:00 UTC' }),
    trusted: z.boolean().openapi({ description: 'completed_orders ≥ renter.trusted_after_orders: the limits do not apply' }),
    exempt: z.boolean().nullable().openapi({ description: 'a new renter whose available balance is ≥ renter.new_balance_exempt; null when the wallet could not say' }),
    max_active: z.number().int().nullable().openapi({ description: 'the limit that applies now; null when none does' }),
    max_daily: z.number().int().nullable(),
    blocked_by: z.array(z.object({ owner_id: Id, created_at: Timestamp })).openapi({ description: 'owners who blocked this user' }),
    blocking: z.array(RenterBlock).openapi({ description: 'renters this user blocked as an owner' }),
  })
  .openapi('RenterStanding');

export const adminRenterStanding = adminOrderRoute('get /api/admin/renters/{id}/standing', { id: 'adminRenterStanding', auth: 'admin', permission: 'users.read',
  summary: 'A user’s renter limits and blocks',
  description: 'Completed, active and today’s orders as renter, whether the new-renter limits apply (docs/rules.md §4 Renter limits), and the blocks by and of the user. A user with no orders answers zeros.',
  params: IdParams,
  success: { status: 200, description: 'the standing', schema: RenterStanding }, errors: [401, 403, 404],
});

export const ordersRoutes = [
  createOrder,
  listOrders,
  getOrder,
  payOrder,
  renewOrder,
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
  adminRevealHandoffRecords,
  adminRequestReveal,
  adminListRevealRequests,
  adminApproveReveal,
  adminCloseOrder,
  adminMarkOrderAbnormal,
  adminListDisputes,
  arbitrateDispute,
  blockRenter,
  unblockRenter,
  listRenterBlocks,
  adminRenterStanding,
];
