import { LEDGER_CHAIN_CHECK, type LedgerVerification, type z } from '@market/contracts';
import type { Queryable } from '@market/shared/db';
import type { AccountKind } from '../domain/accounts';
import { findLedgerChainBreaks } from './ledger-chain';

export type LedgerDifference = z.infer<typeof LedgerVerification>['differences'][number];

/** The kinds of account that set money aside for something not finished (named `<what>_hold`). */
type HoldKind = Extract<AccountKind, `${string}_hold`>;

/**
 * What each kind of hold account holds money for: the rows of `table` (account key `prefix` + the
 * row's id), their amount, and the statuses in which the hold is open. Every hold kind must be here
 * (a kind added to AccountKind without its entry does not compile), and the checks below are made
 * from this list, so a new kind of hold is checked like the others; a hold account of a kind the
 * database knows but this list does not is itself a difference.
 */
const HOLDS: { [K in HoldKind]: { subject: string; table: string; prefix: string; open: readonly string[] } } = {
  withdrawal_hold: { subject: 'withdrawal', table: 'withdrawals', prefix: 'withdrawal:', open: ['pending_review', 'processing'] },
  refund_hold: { subject: 'refund', table: 'refunds', prefix: 'refund:', open: ['approved', 'processing'] },
};

const sqlList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

function holdChecks(): Array<{ check: string; sql: string }> {
  return Object.entries(HOLDS).flatMap(([kind, hold]) => [
    {
      check: `a ${hold.subject} that is open (${hold.open.join(', ')}) holds exactly its amount in its ${kind} account; a finished one holds nothing`,
      sql: `SELECT s.id, s.status, s.amount::text, COALESCE(a.balance, 0)::text AS holds
            FROM ${hold.table} s LEFT JOIN accounts a ON a.key = '${hold.prefix}' || s.id
            WHERE (s.status IN (${sqlList(hold.open)}) AND COALESCE(a.balance, 0) <> s.amount)
               OR (s.status NOT IN (${sqlList(hold.open)}) AND COALESCE(a.balance, 0) <> 0)
            LIMIT 50`,
    },
    {
      check: `money sits in a ${kind} account only for a ${hold.subject} the wallet has`,
      sql: `SELECT a.key, a.balance::text FROM accounts a
            WHERE a.kind = '${kind}' AND a.balance <> 0
              AND NOT EXISTS (SELECT 1 FROM ${hold.table} s WHERE a.key = '${hold.prefix}' || s.id) LIMIT 50`,
    },
  ]);
}

/** Payments whose recharge credits disagree with them (shared by wallet:verify and money:verify). */
const RECHARGE_DISCREPANCIES = `SELECT p.id, p.status, p.amount::text, COALESCE(SUM(t.amount), 0)::text AS credited, COUNT(t.id)::int AS credits
  FROM payments p LEFT JOIN transfers t ON t.payment_id = p.id AND t.biz_type = 'recharge'
  GROUP BY p.id, p.status, p.amount
  HAVING (p.status = 'succeeded' AND (COUNT(t.id) <> 1 OR SUM(t.amount) <> p.amount)) OR (p.status <> 'succeeded' AND COUNT(t.id) > 0)
  LIMIT 50`;

/**
 * Each check is a query returning the rows that break one ledger rule; an empty answer means the
 * rule holds. Read-only, so it can run against a live database at any time.
 */
const CHECKS: Array<{ check: string; sql: string }> = [
  {
    check: 'the balances of all accounts sum to zero',
    sql: `SELECT SUM(balance)::text AS total FROM accounts HAVING COALESCE(SUM(balance), 0) <> 0`,
  },
  {
    check: 'every account balance is the sum of its entries',
    sql: `SELECT a.key, a.balance::text, COALESCE(SUM(e.amount), 0)::text AS entries
          FROM accounts a LEFT JOIN entries e ON e.account_key = a.key
          GROUP BY a.key, a.balance HAVING a.balance <> COALESCE(SUM(e.amount), 0) LIMIT 50`,
  },
  {
    check: 'every transfer is one debit of its source and one credit of its target, of its amount',
    sql: `SELECT t.id, t.amount::text, COUNT(e.seq)::int AS entries
          FROM transfers t LEFT JOIN entries e ON e.transfer_id = t.id
          GROUP BY t.id, t.amount, t.from_account, t.to_account
          HAVING COUNT(e.seq) <> 2
              OR COALESCE(SUM(e.amount) FILTER (WHERE e.account_key = t.from_account), 0) <> -t.amount
              OR COALESCE(SUM(e.amount) FILTER (WHERE e.account_key = t.to_account), 0) <> t.amount
          LIMIT 50`,
  },
  {
    check: 'every entry’s balance_after is its account’s running total',
    sql: `SELECT id, account_key, balance_after::text, running::text FROM (
            SELECT id, account_key, balance_after, SUM(amount) OVER (PARTITION BY account_key ORDER BY seq) AS running FROM entries
          ) x WHERE balance_after <> running LIMIT 50`,
  },
  {
    check: 'no user, escrow or platform account is below zero, and the gateway clearing account never above',
    sql: `SELECT key, kind, balance::text FROM accounts
          WHERE (kind <> 'gateway_clearing' AND balance < 0) OR (kind = 'gateway_clearing' AND balance > 0) LIMIT 50`,
  },
  {
    check: 'platform revenue is credited only by platform fees, into the revenue accounts (platform:revenue and its shards platform:revenue:NN)',
    sql: `SELECT t.id, t.biz_type, t.to_account, a.kind FROM transfers t JOIN accounts a ON a.key = t.to_account
          WHERE (a.kind = 'platform_revenue') <> (t.biz_type = 'platform_fee')
             OR (a.kind = 'platform_revenue' AND a.key !~ '^platform:revenue(:[0-9]{2})?$') LIMIT 50`,
  },
  {
    check: 'the revenue accounts together hold every platform fee taken, less what left them',
    sql: `SELECT revenue::text, fees::text, paid_out::text FROM (
            SELECT (SELECT COALESCE(SUM(balance), 0) FROM accounts WHERE kind = 'platform_revenue') AS revenue,
                   (SELECT COALESCE(SUM(amount), 0) FROM transfers WHERE biz_type = 'platform_fee') AS fees,
                   (SELECT COALESCE(SUM(t.amount), 0) FROM transfers t JOIN accounts a ON a.key = t.from_account WHERE a.kind = 'platform_revenue') AS paid_out
          ) x WHERE revenue <> fees - paid_out`,
  },
  {
    check: 'an escrow still held holds exactly its charge; an escrow whose order ended holds nothing',
    sql: `SELECT o.order_id, o.status, o.amount::text AS charged, COALESCE(a.balance, 0)::text AS holds
          FROM order_escrows o LEFT JOIN accounts a ON a.key = 'escrow:' || o.order_id
          WHERE (o.status = 'held' AND COALESCE(a.balance, 0) <> o.amount) OR (o.status <> 'held' AND COALESCE(a.balance, 0) <> 0)
          LIMIT 50`,
  },
  {
    check: 'money sits only in the escrow of an order the wallet charged',
    sql: `SELECT a.key, a.balance::text FROM accounts a
          WHERE a.kind = 'order_escrow' AND a.balance <> 0
            AND NOT EXISTS (SELECT 1 FROM order_escrows o WHERE o.order_id = a.owner_id AND o.status = 'held') LIMIT 50`,
  },
  {
    check: 'each order was charged once, and once per renewal, by its charge amount (never, if it ended before a charge)',
    sql: `SELECT o.order_id, o.status, o.amount::text, COALESCE(SUM(t.amount), 0)::text AS paid_in, COUNT(t.id)::int AS charges
          FROM order_escrows o LEFT JOIN transfers t ON t.order_id = o.order_id AND t.biz_type = 'order_payment'
          GROUP BY o.order_id, o.status, o.amount
          HAVING COUNT(t.id) <> CASE WHEN o.status = 'void' THEN 0 ELSE 1 END + (SELECT COUNT(*) FROM order_escrow_renewals r WHERE r.order_id = o.order_id)
              OR COALESCE(SUM(t.amount), 0) <> CASE WHEN o.status = 'void' THEN 0 ELSE o.amount END
          LIMIT 50`,
  },
  {
    check: 'each succeeded recharge credited its amount once; no other payment credited anything',
    sql: RECHARGE_DISCREPANCIES,
  },
  ...holdChecks(),
  {
    check: 'every hold account is of a kind the ledger check knows',
    sql: `SELECT key, kind, balance::text FROM accounts WHERE kind LIKE '%\\_hold' AND kind NOT IN (${sqlList(Object.keys(HOLDS))}) LIMIT 50`,
  },
  {
    check:
      'each withdrawal was held once; a paid one paid out its amount once and gave nothing back; a reversed one paid out once and got it back once; an unpaid one paid out nothing',
    sql: `SELECT w.id, w.status, w.amount::text,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal')::int AS held,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal_payout')::int AS paid_out,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal_refund')::int AS given_back,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal_reversal')::int AS returned
          FROM withdrawals w LEFT JOIN transfers t ON t.withdrawal_id = w.id
          GROUP BY w.id, w.status, w.amount
          HAVING COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal') <> 1
              OR COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'withdrawal'), 0) <> w.amount
              OR COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal_payout') <> CASE WHEN w.status IN ('paid', 'reversed') THEN 1 ELSE 0 END
              OR COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'withdrawal_payout'), 0) <> CASE WHEN w.status IN ('paid', 'reversed') THEN w.amount ELSE 0 END
              OR COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal_refund') <> CASE WHEN w.status IN ('failed', 'rejected', 'cancelled') THEN 1 ELSE 0 END
              OR COUNT(t.id) FILTER (WHERE t.biz_type = 'withdrawal_reversal') <> CASE WHEN w.status = 'reversed' THEN 1 ELSE 0 END
              OR COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'withdrawal_reversal'), 0) <> CASE WHEN w.status = 'reversed' THEN w.amount ELSE 0 END
          LIMIT 50`,
  },
  {
    check: 'the payout accounts hold exactly what paid withdrawals took out',
    sql: `SELECT a.key, a.balance::text, COALESCE(SUM(w.amount), 0)::text AS paid
          FROM accounts a LEFT JOIN withdrawals w ON a.key = 'payout:' || w.channel AND w.status = 'paid'
          WHERE a.kind = 'payout_clearing'
          GROUP BY a.key, a.balance HAVING a.balance <> COALESCE(SUM(w.amount), 0) LIMIT 50`,
  },
  {
    check: 'no withdrawal is stuck: one being sent is looked at again within the hour',
    sql: `SELECT id, status, sent_at, next_check_at FROM withdrawals
          WHERE status = 'processing' AND (next_check_at IS NULL OR next_check_at < now() - interval '1 hour') LIMIT 50`,
  },
  {
    check: 'each approved refund was held once, by its amount; a refunded one paid out once, a failed one gave back once, and nothing else moved',
    sql: `SELECT r.id, r.status, r.amount::text,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'refund_hold')::int AS held,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'refund_payout')::int AS paid_out,
                 COUNT(t.id) FILTER (WHERE t.biz_type = 'refund_release')::int AS given_back
          FROM refunds r LEFT JOIN transfers t ON t.refund_id = r.id
          GROUP BY r.id, r.status, r.amount
          HAVING COUNT(t.id) FILTER (WHERE t.biz_type = 'refund_hold') <> CASE WHEN r.status IN ('requested', 'rejected') THEN 0 ELSE 1 END
              OR COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'refund_hold'), 0) <> CASE WHEN r.status IN ('requested', 'rejected') THEN 0 ELSE r.amount END
              OR COUNT(t.id) FILTER (WHERE t.biz_type = 'refund_payout') <> CASE WHEN r.status = 'refunded' THEN 1 ELSE 0 END
              OR COUNT(t.id) FILTER (WHERE t.biz_type = 'refund_release') <> CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END
              OR COUNT(t.id) FILTER (WHERE t.biz_type NOT IN ('refund_hold', 'refund_payout', 'refund_release')) > 0
          LIMIT 50`,
  },
  {
    check: 'the refund accounts hold exactly what refunded refunds returned through their provider',
    sql: `SELECT a.key, a.balance::text, COALESCE(SUM(r.amount), 0)::text AS refunded
          FROM accounts a LEFT JOIN refunds r ON a.key = 'refunded:' || r.provider AND r.status = 'refunded'
          WHERE a.kind = 'refund_clearing'
          GROUP BY a.key, a.balance HAVING a.balance <> COALESCE(SUM(r.amount), 0)
          LIMIT 50`,
  },
  {
    check: 'no refund is stuck: one approved or being sent is looked at again within two hours',
    sql: `SELECT id, status, sent_at, next_check_at FROM refunds
          WHERE status IN ('approved', 'processing') AND (next_check_at IS NULL OR next_check_at < now() - interval '2 hours') LIMIT 50`,
  },
];

export async function findLedgerDifferences(db: Queryable): Promise<LedgerDifference[]> {
  const differences: LedgerDifference[] = [];
  for (const { check, sql } of CHECKS) {
    const rows: Array<Record<string, unknown>> = await db.query(sql);
    if (rows.length > 0) differences.push({ check, rows });
  }
  const breaks = await findLedgerChainBreaks(db);
  if (breaks.length > 0) differences.push({ check: LEDGER_CHAIN_CHECK, rows: breaks.map((b) => ({ ...b })) });
  return differences;
}

/**
 * The ledger verification `npm run wallet:verify` prints and the internal route answers (so the back
 * office's money check reports the same): how many rules were checked and each that does not hold.
 * `db` should be one read-only snapshot, so rules read together agree with each other.
 */
export async function verifyLedger(db: Queryable): Promise<z.infer<typeof LedgerVerification>> {
  return { checks: CHECKS.length + 1, differences: await findLedgerDifferences(db) };
}

export async function findRechargeDiscrepancies(
  db: Queryable,
): Promise<Array<{ id: string; status: string; amount: string; credited: string; credits: number }>> {
  return db.query(RECHARGE_DISCREPANCIES);
}
