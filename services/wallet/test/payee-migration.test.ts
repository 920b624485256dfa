import { SecretBox } from '@market/shared/crypto';
import { api, mintCaller, startStack, type Stack } from '@market/testkit';
import type { QueryRunner } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { sealWithdrawalPayees } from '../src/persistence/migrations/1766000000001-seal-withdrawal-payees';
import { openPayee } from '../src/persistence/sealed-payee';

describe('the migration sealing withdrawals’ payees', () => {
  let stack: Stack;
  let secrets: SecretBox;
  let migration: InstanceType<ReturnType<typeof sealWithdrawalPayees>>;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet'] });
    secrets = new SecretBox(stack.services.wallet!.ctx.config.DATA_ENCRYPTION_KEYS as string);
    migration = new (sealWithdrawalPayees(secrets))();
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.wallet!.ctx.db;
  const run = (step: 'up' | 'down') => db().transaction((tx) => migration[step](tx as unknown as QueryRunner));
  const columns = async () =>
    (await db().query(`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'withdrawals'`)).map(
      (c: { column_name: string }) => c.column_name,
    );

  it('seals the clear payees of existing withdrawals to their rows, keeps the masked forms, drops the clear columns, and rolls back', async () => {
    const user = mintCaller('user');
    // back to the table as it was: clear payee columns, holding what was written before
    await run('down');
    expect(await columns()).toEqual(expect.arrayContaining(['payee_account', 'payee_name']));
    const old = [
      { id: uuidv7(), account: 'owner@example.com', name: '张三' },
      { id: uuidv7(), account: 'o8x-openid-0001', name: '欧阳娜娜' },
    ];
    for (const w of old) {
      await db().query(
        `INSERT INTO withdrawals (id, user_id, amount, channel, payee_account, payee_name, status, created_at)
         VALUES ($1, $2, 1000, 'alipay', $3, $4, 'pending_review', now())`,
        [w.id, user.id, w.account, w.name],
      );
    }

    await run('up');
    const cols = await columns();
    expect(cols).not.toContain('payee_account');
    expect(cols).not.toContain('payee_name');
    const rows = await db().query(`SELECT to_jsonb(w) AS row FROM withdrawals w WHERE user_id = $1 ORDER BY id`, [user.id]);
    expect(rows).toHaveLength(2);
    for (const [i, { row }] of rows.entries()) {
      const text = JSON.stringify(row);
      expect(text).not.toContain(old[i]!.account);
      expect(text).not.toContain(old[i]!.name);
      expect(openPayee(secrets, row)).toEqual({ account: old[i]!.account, name: old[i]!.name });
    }
    // each is bound to its own row
    expect(() => openPayee(secrets, { ...rows[0].row, id: old[1]!.id })).toThrow();

    const listed = await api(stack.url).get('/api/wallet/withdrawals', user.token);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: old[1]!.id, payee_account_masked: 'o8x****01', payee_name_masked: '欧***' }),
      expect.objectContaining({ id: old[0]!.id, payee_account_masked: 'own****om', payee_name_masked: '张*' }),
    ]);

    // and back down: the clear values return from the sealed ones
    await run('down');
    expect(await db().query(`SELECT payee_account, payee_name FROM withdrawals WHERE user_id = $1 ORDER BY id`, [user.id])).toEqual(
      old.map((w) => ({ payee_account: w.account, payee_name: w.name })),
    );
    await run('up');
  });
});
