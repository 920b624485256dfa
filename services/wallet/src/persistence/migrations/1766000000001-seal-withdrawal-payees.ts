import type { SecretBox } from '@market/shared/crypto';
import type { Migration, Queryable } from '@market/shared/db';
import { openPayee, sealPayee } from '../sealed-payee';

const BATCH = 500;

/**
 * Payee accounts and names were stored in clear (ADR 0016 requires personal data sealed at rest):
 * each existing withdrawal's payee is sealed bound to its row, with the masked forms views and
 * events show kept beside, and the clear columns are dropped. Needs the keyring, hence a factory.
 */
export function sealWithdrawalPayees(secrets: SecretBox): new () => Migration {
  return class SealWithdrawalPayees1766000000001 implements Migration {
    name = 'SealWithdrawalPayees1766000000001';

    async up(q: Queryable) {
      await q.query(`ALTER TABLE withdrawals
        ADD COLUMN payee_account_sealed text, ADD COLUMN payee_name_sealed text,
        ADD COLUMN payee_account_masked text, ADD COLUMN payee_name_masked text`);
      for (;;) {
        const rows: Array<{ id: string; payee_account: string; payee_name: string }> = await q.query(
          `SELECT id, payee_account, payee_name FROM withdrawals WHERE payee_account_sealed IS NULL ORDER BY id LIMIT ${BATCH}`,
        );
        if (rows.length === 0) break;
        for (const row of rows) {
          const sealed = sealPayee(secrets, row.id, { account: row.payee_account, name: row.payee_name });
          await q.query(
            `UPDATE withdrawals SET payee_account_sealed = $2, payee_name_sealed = $3, payee_account_masked = $4, payee_name_masked = $5 WHERE id = $1`,
            [row.id, sealed.payee_account_sealed, sealed.payee_name_sealed, sealed.payee_account_masked, sealed.payee_name_masked],
          );
        }
      }
      await q.query(`ALTER TABLE withdrawals
        ALTER COLUMN payee_account_sealed SET NOT NULL, ALTER COLUMN payee_name_sealed SET NOT NULL,
        ALTER COLUMN payee_account_masked SET NOT NULL, ALTER COLUMN payee_name_masked SET NOT NULL,
        DROP COLUMN payee_account, DROP COLUMN payee_name`);
    }

    async down(q: Queryable) {
      await q.query(`ALTER TABLE withdrawals ADD COLUMN payee_account text, ADD COLUMN payee_name text`);
      const rows: Array<{ id: string; payee_account_sealed: string; payee_name_sealed: string }> = await q.query(
        `SELECT id, payee_account_sealed, payee_name_sealed FROM withdrawals`,
      );
      for (const row of rows) {
        const payee = openPayee(secrets, row);
        await q.query(`UPDATE withdrawals SET payee_account = $2, payee_name = $3 WHERE id = $1`, [row.id, payee.account, payee.name]);
      }
      await q.query(`ALTER TABLE withdrawals
        ALTER COLUMN payee_account SET NOT NULL, ALTER COLUMN payee_name SET NOT NULL,
        DROP COLUMN payee_account_sealed, DROP COLUMN payee_name_sealed, DROP COLUMN payee_account_masked, DROP COLUMN payee_name_masked`);
    }
  };
}
