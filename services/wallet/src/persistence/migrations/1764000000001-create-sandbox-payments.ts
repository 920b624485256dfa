import { sqlMigration } from '@market/shared/db';

/**
 * The sandbox payment gateway's own record (development only): what the tester chose on the pay
 * page, which is what a query of the sandbox answers. Apart from `payments`, as a real gateway's
 * records would be.
 */
export const CreateSandboxPayments1764000000001 = sqlMigration(
  'CreateSandboxPayments1764000000001',
  [
    `
      CREATE TABLE sandbox_payments (
        payment_id uuid PRIMARY KEY,
        amount bigint NOT NULL,
        channel text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'closed')),
        gateway_txn_id text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        paid_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
  ],
  [`DROP TABLE sandbox_payments`],
);
