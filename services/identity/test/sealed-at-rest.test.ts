import { DEV_KEYRING, SecretBox, sealedAt } from '@market/shared/crypto';
import { startService } from '@market/shared/service';
import { sealedInLegacyFormat, serviceEnv } from '@market/shared/testing';
import { api, type Stack } from '@market/testkit';
import { ID_NUMBER_SEALED, REAL_NAME_SEALED } from '../src/persistence/realname-repository';
import { identityService } from '../src/service';
import { logIn, startIdentityStack, type Client } from './helpers';

const VALID_ID = '11010519491231002X';

describe('real-name data sealed at rest, bound to its row', () => {
  let stack: Stack;
  let client: Client;

  beforeAll(async () => {
    stack = await startIdentityStack();
    client = api(stack.url);
  });
  afterAll(() => stack.stop());

  const rowOf = async (userId: string): Promise<{ real_name_sealed: string; id_number_sealed: string }> =>
    (await stack.services.identity!.ctx.db.query(
      `SELECT real_name_sealed, id_number_sealed FROM realname_verifications WHERE user_id = $1`,
      [userId],
    ))[0];

  async function verified(realName: string) {
    const { access_token, user } = await logIn(client);
    const res = await client.post('/api/realname/start', { real_name: realName, id_number: VALID_ID }, access_token);
    expect(res.body.status).toBe('verified');
    return { token: access_token, userId: user.id, view: res.body };
  }

  it('binds rows sealed in the old format to their row when the service starts, after which they open', async () => {
    const { token, userId, view } = await verified('张明');
    const { db } = stack.services.identity!.ctx;
    await db.query(`UPDATE realname_verifications SET real_name_sealed = $2, id_number_sealed = $3 WHERE user_id = $1`, [
      userId,
      sealedInLegacyFormat('张明'),
      sealedInLegacyFormat(VALID_ID),
    ]);

    const restarted = await startService(identityService, { ...serviceEnv(stack.env, 'identity'), DB_SCHEMA: stack.services.identity!.ctx.schema, PORT: '0' });
    await restarted.stop();

    const row = await rowOf(userId);
    expect(row.real_name_sealed).toMatch(/^v2\.dev\./);
    expect(row.id_number_sealed).toMatch(/^v2\.dev\./);
    const secrets = new SecretBox(DEV_KEYRING);
    expect(secrets.open(row.real_name_sealed, sealedAt(REAL_NAME_SEALED, userId))).toBe('张明');
    expect(secrets.open(row.id_number_sealed, sealedAt(ID_NUMBER_SEALED, userId))).toBe(VALID_ID);
    expect((await client.get('/api/realname/status', token)).body).toEqual(view);
  });

  it('does not open a ciphertext copied into another user’s row or column', async () => {
    const a = await verified('张明');
    const b = await verified('李四');
    const secrets = new SecretBox(DEV_KEYRING);
    const stolen = (await rowOf(a.userId)).id_number_sealed;
    expect(() => secrets.open(stolen, sealedAt(ID_NUMBER_SEALED, b.userId))).toThrow('cannot open sealed value');
    expect(() => secrets.open(stolen, sealedAt(REAL_NAME_SEALED, a.userId))).toThrow('cannot open sealed value');
    expect(secrets.open(stolen, sealedAt(ID_NUMBER_SEALED, a.userId))).toBe(VALID_ID);
  });
});
