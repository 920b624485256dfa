// What the testkit hands to other workspaces' tests from wallet (package entry `@market/wallet/testing`):
// the dashboard's ledger figures and the ledger's own consistency check.
export { findLedgerDifferences } from './persistence/ledger-audit';
export { LEDGER_BY_DAY_SQL, LEDGER_FIGURES_SQL } from './persistence/stats-queries';
