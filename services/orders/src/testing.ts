// What the testkit hands to other workspaces' tests from orders (package entry `@market/orders/testing`):
// the dashboard's order figures, to compare the admin dashboard against.
export { ORDER_FIGURES_SQL, ORDERS_BY_DAY_SQL } from './persistence/stats-queries';
