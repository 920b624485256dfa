import { v7 as uuidv7 } from 'uuid';
import type { EventData, OrderStatus, z } from '@market/contracts';

/**
 * An order event's data as orders publishes it, for tests of the services that consume order events:
 * made-up parties and listing, one hour at 800 fen with a 5,000 fen deposit; `overrides` name what
 * the test cares about (the order, the listing).
 */
export function orderEventData(status: z.infer<typeof OrderStatus>, overrides: Partial<EventData<'order.created'>> = {}): EventData<'order.created'> {
  return {
    order_id: uuidv7(),
    listing_id: uuidv7(),
    listing_title: 'x',
    renter_id: uuidv7(),
    owner_id: uuidv7(),
    status,
    rent: 800,
    deposit: 5000,
    amount: 5800,
    hours: 1,
    reason: null,
    actor_id: null,
    ...overrides,
  };
}

/** How that order settles, as `order.completed` and `order.closed` carry it: the rent to the owner less the fee, the deposit back. */
export const ORDER_SETTLEMENT = { consumption: 800, deposit_deduction: 0, refund: 5000, owner_income: 760, platform_fee: 40 };
