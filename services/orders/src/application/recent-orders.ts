import type { OrderRow } from '../persistence/order-repository';

/**
 * The orders as this process last wrote them, by id, the newest `capacity` of them: a party's next
 * move is planned on the row its last move answered, without reading it again (ADR 0083). Such a
 * row may be behind the database (another replica, a timeout, an admin moved the order since), and
 * that is always found out before anything is decided on it:
 * - every move is written guarded by the version it was planned on, so a plan made on an older row
 *   writes nothing, and the move is decided again on the order read under its lock;
 * - a refusal is never answered from a remembered row: the order is read again and the move
 *   planned on what the database holds.
 * Only who the parties are is taken from it unchecked, and they never change.
 */
export class RecentOrders {
  private readonly rows = new Map<string, OrderRow>();

  constructor(private readonly capacity = 10_000) {}

  remember(row: OrderRow): void {
    const known = this.rows.get(row.id);
    // an answer that arrives late must not put back an older version than one already remembered
    if (known && known.version > row.version) return;
    this.rows.delete(row.id);
    this.rows.set(row.id, row);
    if (this.rows.size > this.capacity) this.rows.delete(this.rows.keys().next().value!);
  }

  find(id: string): OrderRow | undefined {
    return this.rows.get(id);
  }
}
