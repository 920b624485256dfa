import { DEV_KEYRING, SecretBox, sealedAt } from '@market/shared/crypto';
import { api, startAliyunIdVerifySimulator, startTencentCloudSimulator } from '@market/testkit';
import { ID_NUMBER_SEALED, REAL_NAME_SEALED } from '../src/persistence/realname-repository';
import { logIn, providerStackPerSuite, startIdentityStack, type ProviderSimulator } from './helpers';

const REGISTERED_ID = '11010519491231002X';
const UNKNOWN_ID = '440524188001010014';

type Mode = 'ok' | 'refused' | 'down' | 'stall';

interface Simulated extends ProviderSimulator<Mode> {
  register(idNumber: string, name: string): void;
  /** the last request the provider got and what it answered */
  lastCall(): { action: string | undefined; answered: string } | undefined;
}

interface Provider {
  name: string;
  action: string;
  /** how the simulator labels a match, a mismatch and an unknown id number */
  answers: { match: string; mismatch: string; unknown: string };
  signatureError: string;
  start(): Promise<Simulated>;
}

const PROVIDERS: Provider[] = [
  {
    name: 'Tencent Cloud FaceID',
    action: 'IdCardVerification',
    answers: { match: 'Result 0', mismatch: 'Result -1', unknown: 'Result -5' },
    signatureError: 'AuthFailure.SignatureFailure',
    async start() {
      const key = { secretId: 'AKIDFaceIdSimulator', secretKey: 'tencent-faceid-simulator-secret' };
      const sim = await startTencentCloudSimulator(key);
      return {
        env: (secret = key.secretKey) => ({
          REALNAME_VERIFIER: 'tencent',
          TENCENT_SECRET_ID: key.secretId,
          TENCENT_SECRET_KEY: secret,
          TENCENT_FACEID_ENDPOINT: sim.url,
        }),
        setMode: (mode) => (sim.faceidMode = mode),
        register: (idNumber, name) => sim.people.set(idNumber, name),
        lastCall: () => sim.calls.at(-1),
        stop: () => sim.stop(),
      };
    },
  },
  {
    name: 'Alibaba Cloud ID verification',
    action: 'Id2MetaVerify',
    answers: { match: 'BizCode 1', mismatch: 'BizCode 2', unknown: 'BizCode 3' },
    signatureError: 'SignatureDoesNotMatch',
    async start() {
      const key = { id: 'LTAI5tCloudauthSimulator', secret: 'aliyun-cloudauth-simulator-secret' };
      const sim = await startAliyunIdVerifySimulator(key);
      return {
        env: (secret = key.secret) => ({
          REALNAME_VERIFIER: 'aliyun',
          ALIYUN_ACCESS_KEY_ID: key.id,
          ALIYUN_ACCESS_KEY_SECRET: secret,
          ALIYUN_CLOUDAUTH_ENDPOINT: sim.url,
        }),
        setMode: (mode) => (sim.mode = mode),
        register: (idNumber, name) => sim.people.set(idNumber, name),
        lastCall: () => sim.calls.at(-1),
        stop: () => sim.stop(),
      };
    },
  },
];

/** Real-name verification through each provider's official SDK, pointed at a simulator of its API that checks request signatures. */
describe.each(PROVIDERS)('real-name verification through $name', (provider) => {
  const own = providerStackPerSuite(async () => {
    const sim = await provider.start();
    sim.register(REGISTERED_ID, '张明');
    return sim;
  }, { REALNAME_DAILY_ATTEMPTS: '2' });

  const start = (token: string, real_name: string, id_number: string) => own.client.post('/api/realname/start', { real_name, id_number }, token);
  const status = async (token: string) => (await own.client.get('/api/realname/status', token)).body.status;

  it('verifies a name that matches the id number, and stores both sealed', async () => {
    const { access_token, user } = await logIn(own.client);
    const res = await start(access_token, '张明', REGISTERED_ID);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'verified', real_name_masked: '*明', id_number_masked: '1101**********002X' });
    expect(own.sim.lastCall()).toEqual({ action: provider.action, answered: provider.answers.match });

    const [row] = await own.stack.services.identity!.ctx.db.query(
      `SELECT real_name_sealed, id_number_sealed FROM realname_verifications WHERE user_id = $1`,
      [user.id],
    );
    expect(JSON.stringify(row)).not.toMatch(/002X|张明/);
    const secrets = new SecretBox(DEV_KEYRING);
    expect(secrets.open(row.real_name_sealed, sealedAt(REAL_NAME_SEALED, user.id))).toBe('张明');
    expect(secrets.open(row.id_number_sealed, sealedAt(ID_NUMBER_SEALED, user.id))).toBe(REGISTERED_ID);
  });

  it('fails a name that does not match, and an id number the registry does not know; the daily cap still applies', async () => {
    const { access_token } = await logIn(own.client);
    const mismatch = await start(access_token, '李四', REGISTERED_ID);
    expect(mismatch.body).toMatchObject({ status: 'failed', verified_at: null });
    expect(own.sim.lastCall()?.answered).toBe(provider.answers.mismatch);
    const unknown = await start(access_token, '王五', UNKNOWN_ID);
    expect(unknown.body.status).toBe('failed');
    expect(own.sim.lastCall()?.answered).toBe(provider.answers.unknown);
    const capped = await start(access_token, '张明', REGISTERED_ID);
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('RATE_LIMITED');
  });

  it.each([
    { mode: 'refused', what: 'out of service (its own error code)' },
    { mode: 'down', what: 'down (HTTP 5xx)' },
    { mode: 'stall', what: 'not answering' },
  ] as const)(
    'answers 503 REALNAME_UNAVAILABLE when the provider is $what, recording nothing and counting no attempt',
    async ({ mode }) => {
      const { access_token } = await logIn(own.client);
      own.sim.setMode(mode);
      for (let i = 0; i < 3; i++) {
        const res = await start(access_token, '张明', REGISTERED_ID);
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('REALNAME_UNAVAILABLE');
      }
      expect(await status(access_token)).toBe('unverified');
      own.sim.setMode('ok');
      // Two real attempts remain of the day's two.
      expect((await start(access_token, '李四', REGISTERED_ID)).body.status).toBe('failed');
      expect((await start(access_token, '张明', REGISTERED_ID)).body.status).toBe('verified');
    },
  );

  it('is refused by the provider when signed with the wrong secret (the simulator checks), surfacing 503', async () => {
    const forged = await startIdentityStack(own.sim.env('a-secret-the-provider-never-issued'));
    try {
      const forgedClient = api(forged.url);
      const { access_token } = await logIn(forgedClient);
      const res = await forgedClient.post('/api/realname/start', { real_name: '张明', id_number: REGISTERED_ID }, access_token);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('REALNAME_UNAVAILABLE');
      expect(own.sim.lastCall()).toEqual({ action: provider.action, answered: provider.signatureError });
      expect((await forgedClient.get('/api/realname/status', access_token)).body.status).toBe('unverified');
    } finally {
      await forged.stop();
    }
  });
});

describe('real-name verification through Tencent Cloud FaceID, its daily cap on an identity', () => {
  it("maps the provider's Result -7 to 429 REALNAME_PROVIDER_LIMITED, counting no attempt", async () => {
    const key = { secretId: 'AKIDFaceIdSimulator', secretKey: 'tencent-faceid-simulator-secret' };
    const sim = await startTencentCloudSimulator(key);
    const stack = await startIdentityStack({
      REALNAME_VERIFIER: 'tencent',
      TENCENT_SECRET_ID: key.secretId,
      TENCENT_SECRET_KEY: key.secretKey,
      TENCENT_FACEID_ENDPOINT: sim.url,
      REALNAME_DAILY_ATTEMPTS: '1',
    });
    try {
      const client = api(stack.url);
      sim.people.set(REGISTERED_ID, '张明');
      const { access_token } = await logIn(client);
      sim.faceidMode = 'frequency';
      const res = await client.post('/api/realname/start', { real_name: '张明', id_number: REGISTERED_ID }, access_token);
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('REALNAME_PROVIDER_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(sim.calls.at(-1)?.answered).toBe('Result -7');
      sim.faceidMode = 'ok';
      const after = await client.post('/api/realname/start', { real_name: '张明', id_number: REGISTERED_ID }, access_token);
      expect(after.body.status).toBe('verified');
    } finally {
      await stack.stop();
      await sim.stop();
    }
  });
});
