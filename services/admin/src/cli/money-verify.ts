import { createAssertionSigner, internalKeysOf } from '@market/shared/auth';
import { baseEnvShape, internalKeyEnvShape, loadConfig, serviceUrls, serviceUrlShape } from '@market/shared/config';
import { InternalClient } from '@market/shared/http';
import { foundNothing, verifyMoney } from '../application/verify-money';
import { adminEnv } from '../config';

/**
 * `npm run money:verify`: the orders ↔ wallet reconciliation and the wallet's ledger checks the admin
 * service also runs as a job (and answers at GET /api/admin/money-check), run once against the live
 * services' internal APIs (signed as admin, like the job). Prints each mismatch with its order or
 * payment id and the fen, and each ledger rule that does not hold; exits 1 when there is one, 2 when
 * it cannot check.
 */
async function main(): Promise<number> {
  const config = loadConfig({
    NODE_ENV: baseEnvShape.NODE_ENV,
    ...internalKeyEnvShape,
    MONEY_SETTLEMENT_DEADLINE_MS: adminEnv.MONEY_SETTLEMENT_DEADLINE_MS,
    ...serviceUrlShape,
  });
  // the admin service's own key: the reconciliation's internal routes name admin as their caller
  const sign = createAssertionSigner(internalKeysOf('admin', config).signing);
  const internal = new InternalClient(serviceUrls(config), (target) => sign({ kind: 'service', sub: 'admin', ip: null }, target), 30_000);
  const found = await verifyMoney(internal, config.MONEY_SETTLEMENT_DEADLINE_MS);
  for (const m of found.mismatches) process.stdout.write(`MISMATCH ${m.id} ${m.fen} fen: ${m.check} (${m.detail})\n`);
  for (const d of found.ledger.differences) process.stdout.write(`LEDGER ${d.check}: ${JSON.stringify(d.rows)}\n`);
  const { mismatches, ledger } = found;
  process.stdout.write(`money:verify: ${mismatches.length === 0 ? 'orders and wallet agree' : `${mismatches.length} mismatch(es)`}; `);
  process.stdout.write(`${ledger.differences.length === 0 ? `the ledger holds (${ledger.checks} checks)` : `${ledger.differences.length} ledger rule(s) broken`}\n`);
  return foundNothing(found) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`money:verify could not check: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
