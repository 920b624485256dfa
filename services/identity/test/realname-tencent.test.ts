import { DEV_KEYRING, SecretBox, sealedAt } from '@market/shared/crypto';
import { api, startTencentCloudSimulator, type Stack, type TencentCloudSimulator } from '@market/testkit';
import { ID_NUMBER_SEALED, REAL_NAME_SEALED } from '../src/persistence/realname-repository';
import { logIn, startIdentityStack, type Client } from './helpers';

const REGISTERED_ID = '11010519491231002X';
const UNKNOWN_ID = '440524188001010014';
const KEY = { secretId: 'AKIDFaceIdSimulator', secretKey: 'tencent-faceid-simulator-secret' };

/** Real-name verification through Tencent Cloud FaceID (IdCardVerification), the SDK pointed at a simulator that checks TC3 signatures. */
describe('real-name verification through Tencent Cloud FaceID', () => {
  let sim: TencentCloudSimulator;
  let stack: Stack;
  let client: Client;
  const env = (secretKey = KEY.secretKey) => ({
    REALNAME_VERIFIER: 'tencent',
    TENCENT_SECRET_ID: KEY.secretId,
    TENCENT_SECRET_KEY: secretKey,
    TENCENT_FACEID_ENDPOINT: sim.url,
  });

  beforeAll(async () => {
    sim = await startTencentCloudSimulator(KEY);
    sim.people.set(REGISTERED_ID, '张明');
    stack = await startIdentityStack({ ...env(), REALNAME_DAILY_ATTEMPTS: '2', PROVIDER_TIMEOUT_MS: '1500' });
    client = api(stack.url);
  });
  afterAll(async () => {
    await stack.stop();
    await sim.stop();
  });
  beforeEach(() => (sim.faceidMode = 'ok'));

  const start = (token: string, real_name: string, id_number: string) => client.post('/api/realname/start', { real_name, id_number }, token);
  const status = async (token: string) => (await client.get('/api/realname/status', token)).body.status;

  it('verifies a name that matches the id number, and stores both sealed', async () => {
    const { access_token, user } = await logIn(client);
    const res = await start(access_token, '张明', REGISTERED_ID);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'verified', real_name_masked: '*明', id_number_masked: '1101**********002X' });
    expect(sim.calls.at(-1)).toEqual({ action: 'IdCardVerification', answered: 'Result 0' });

    const [row] = await stack.services.identity!.ctx.db.query(
      `SELECT real_name_sealed, id_number_sealed FROM realname_verifications WHERE user_id = $1`,
      [user.id],
    );
    expect(JSON.stringify(row)).not.toMatch(/002X|张明/);
    const secrets = new SecretBox(DEV_KEYRING);
    expect(secrets.open(row.real_name_sealed, sealedAt(REAL_NAME_SEALED, user.id))).toBe('张明');
    expect(secrets.open(row.id_number_sealed, sealedAt(ID_NUMBER_SEALED, user.id))).toBe(REGISTERED_ID);
  });

  it('fails a name that does not match, and an id number the registry does not know; the daily cap still applies', async () => {
    const { access_token } = await logIn(client);
    const mismatch = await start(access_token, '李四', REGISTERED_ID);
    expect(mismatch.body).toMatchObject({ status: 'failed', verified_at: null });
    expect(sim.calls.at(-1)?.answered).toBe('Result -1');
    const unknown = await start(access_token, '王五', UNKNOWN_ID);
    expect(unknown.body.status).toBe('failed');
    expect(sim.calls.at(-1)?.answered).toBe('Result -5');
    const capped = await start(access_token, '张明', REGISTERED_ID);
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('RATE_LIMITED');
  });

  it.each(['refused', 'down', 'stall'] as const)(
    'answers 503 REALNAME_UNAVAILABLE when the provider is %s, recording nothing and counting no attempt',
    async (mode) => {
      const { access_token } = await logIn(client);
      sim.faceidMode = mode;
      for (let i = 0; i < 3; i++) {
        const res = await start(access_token, '张明', REGISTERED_ID);
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('REALNAME_UNAVAILABLE');
      }
      expect(await status(access_token)).toBe('unverified');
      sim.faceidMode = 'ok';
      // Two real attempts remain of the day's two.
      expect((await start(access_token, '李四', REGISTERED_ID)).body.status).toBe('failed');
      expect((await start(access_token, '张明', REGISTERED_ID)).body.status).toBe('verified');
    },
  );

  it("maps the provider's daily cap on an identity to 429 REALNAME_PROVIDER_LIMITED, counting no attempt", async () => {
    const { access_token } = await logIn(client);
    sim.faceidMode = 'frequency';
    const res = await start(access_token, '张明', REGISTERED_ID);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('REALNAME_PROVIDER_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await status(access_token)).toBe('unverified');
  });

  it('is refused by the provider when signed with the wrong secret (the simulator checks), surfacing 503', async () => {
    const forged = await startIdentityStack(env('a-secret-tencent-never-issued'));
    try {
      const forgedClient = api(forged.url);
      const { access_token } = await logIn(forgedClient);
      const res = await forgedClient.post('/api/realname/start', { real_name: '张明', id_number: REGISTERED_ID }, access_token);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('REALNAME_UNAVAILABLE');
      expect(sim.calls.at(-1)).toEqual({ action: 'IdCardVerification', answered: 'AuthFailure.SignatureFailure' });
      expect((await forgedClient.get('/api/realname/status', access_token)).body.status).toBe('unverified');
    } finally {
      await forged.stop();
    }
  });
});
