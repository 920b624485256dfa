import type { Identity } from '@market/shared/auth';
import { isUuid, type Queryable, type Tx } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { isRefusal, planOrThrow, type Planned } from '@market/shared/planning';
import type { MoneyMoveActor, MoneyMovePlan } from '../domain/money-move-table';
import type { WalletDeps } from './deps';

type Stored = { id: string; status: string };
type AnyPlan<Row extends Stored> = MoneyMovePlan<Row['status'], object, { kind: string }>;

/** What one kind of money leaving through a provider (a refund, a withdrawal) brings to the steps that move it. */
export interface MoneyMoveKind<Row extends Stored, Move, Plan extends AnyPlan<Row>> {
  /** "refund", "withdrawal": in NOT_FOUND messages and in the logs (`refund_id`, `withdrawal_id`) */
  noun: 'refund' | 'withdrawal';
  find(db: Queryable, id: string, lock?: boolean): Promise<Row | null>;
  plan(row: Row, move: Move, actor: MoneyMoveActor, now: Date): Planned<Plan>;
  /** writes `change` to a row the caller holds locked in `from` */
  update(tx: Tx, id: string, from: Row['status'], change: Plan['stamps'] & { status: Row['status'] }): Promise<Row>;
  /** carries out a plan's effects for the row as it now stands, in the caller's transaction, audited in `audited`'s name */
  carryOut(deps: WalletDeps, tx: Tx, row: Row, effects: Plan['effects'], audited: Identity | null, now: Date): Promise<void>;
  /** the effect by which a plan has the row sent to the provider once the move has committed */
  sendEffect: Plan['effects'][number]['kind'];
}

/** What a move left: the row as it now stands, and whether it is to be sent once the transaction commits. */
export interface MoneyMoved<Row> {
  row: Row;
  send: boolean;
}

/**
 * How the application moves a user's money leaving through a provider (the tables share a shape,
 * domain/money-move-table): one stored row, moved under its lock as its planner says, its state,
 * stamps and effects written in one transaction, and sent to the provider only once that has
 * committed, by the caller. Each kind brings its rows, planner and effects.
 */
export class MoneyMoves<Row extends Stored, Move, Plan extends AnyPlan<Row>> {
  constructor(readonly kind: MoneyMoveKind<Row, Move, Plan>) {}

  /**
   * Moves a row the caller holds locked as its planner plans it: the state and its stamps are
   * written and the plan's effects carried out, all in the caller's transaction. A refused move
   * throws its refusal.
   */
  async move(deps: WalletDeps, tx: Tx, row: Row, move: Move, actor: MoneyMoveActor, audited: Identity | null): Promise<MoneyMoved<Row>> {
    const now = new Date();
    const plan = planOrThrow(this.kind.plan(row, move, actor, now));
    const changes = plan.next !== row.status || Object.keys(plan.stamps).length > 0;
    const moved = changes ? await this.kind.update(tx, row.id, row.status, { ...plan.stamps, status: plan.next }) : row;
    await this.kind.carryOut(deps, tx, moved, plan.effects, audited, now);
    return { row: moved, send: plan.effects.some((effect) => effect.kind === this.kind.sendEffect) };
  }

  /**
   * A person's move of the row `id` (approve, reject, cancel, resolve) under its lock, in a
   * transaction of its own: racing moves queue, and only the first finds the row in the state it
   * moves from. An id that is none, or of no row, is NOT_FOUND; a refused move throws its refusal.
   */
  async moveLocked(deps: WalletDeps, id: string, move: Move, actor: MoneyMoveActor, audited: Identity): Promise<MoneyMoved<Row>> {
    if (!isUuid(id)) throw new NotFound(`${this.kind.noun} not found`);
    return deps.db.transaction(async (tx) => {
      const row = await this.kind.find(tx, id, true);
      if (!row) throw new NotFound(`${this.kind.noun} not found`);
      return this.move(deps, tx, row, move, actor, audited);
    });
  }

  /**
   * The sender's or the provider's move of the row `id`, made by `moveOf` of the row as it stands
   * under its lock, in a transaction of its own, if the planner allows it: a move it refuses (a late
   * answer for a row already final, a send another caller made first) changes nothing and answers
   * null. `allowed` runs just before an allowed move is carried out.
   */
  moveIfAllowed(deps: WalletDeps, id: string, actor: MoneyMoveActor, moveOf: (row: Row) => Move, allowed?: (row: Row) => void): Promise<MoneyMoved<Row> | null> {
    return deps.db.transaction(async (tx) => {
      const row = await this.kind.find(tx, id, true);
      if (!row) return null;
      const move = moveOf(row);
      if (isRefusal(this.kind.plan(row, move, actor, new Date()))) return null;
      allowed?.(row);
      return this.move(deps, tx, row, move, actor, null);
    });
  }
}
