import { api, newAdmin, startAliyunSmsSimulator, startTencentCloudSimulator } from '@market/testkit';
import { forgetResendInterval, from, newIp, newPhone, outboxEvents, providerStackPerSuite, startIdentityStack, type ProviderSimulator } from './helpers';

/**
 * Identity with each real SMS provider, its official SDK pointed at a local simulator of the
 * provider's API that checks the request signature. The code a user types is the one the
 * simulator received.
 */
type Mode = 'ok' | 'frequency' | 'refused' | 'down' | 'stall';

interface Simulated extends ProviderSimulator<Mode> {
  /** the code the provider delivered to the phone last, if any */
  codeFor(phone: string): string | undefined;
  deliveries(): number;
  /** what the provider answered each request it got, oldest first */
  answers(): string[];
  /** what the provider recorded of the last delivery besides the code */
  lastDelivery(): Record<string, unknown> | undefined;
}

interface Provider {
  name: string;
  start(): Promise<Simulated>;
  signatureError: string;
  frequencyCode: string;
}

const PROVIDERS: Provider[] = [
  {
    name: 'aliyun',
    signatureError: 'SignatureDoesNotMatch',
    frequencyCode: 'isv.BUSINESS_LIMIT_CONTROL',
    async start() {
      const key = { id: 'LTAI5tSimulatorKeyId', secret: 'aliyun-simulator-access-key-secret' };
      const sim = await startAliyunSmsSimulator(key);
      return {
        env: (secret = key.secret) => ({
          SMS_PROVIDER: 'aliyun',
          ALIYUN_ACCESS_KEY_ID: key.id,
          ALIYUN_ACCESS_KEY_SECRET: secret,
          ALIYUN_SMS_ENDPOINT: sim.url,
          ALIYUN_SMS_SIGN_NAME: '租号市场',
          ALIYUN_SMS_TEMPLATE_CODE: 'SMS_465300001',
        }),
        setMode: (mode) => (sim.mode = mode),
        codeFor: (phone) => sim.lastTo(phone)?.code,
        deliveries: () => sim.delivered.length,
        answers: () => sim.calls.map((c) => c.answered),
        lastDelivery: () => {
          const { signName, templateCode } = sim.delivered.at(-1) ?? {};
          return { signName, templateCode };
        },
        stop: () => sim.stop(),
      };
    },
  },
  {
    name: 'tencent',
    signatureError: 'AuthFailure.SignatureFailure',
    frequencyCode: 'LimitExceeded.PhoneNumberDailyLimit',
    async start() {
      const key = { secretId: 'AKIDSimulatorSecretId', secretKey: 'tencent-simulator-secret-key' };
      const sim = await startTencentCloudSimulator(key);
      return {
        env: (secret = key.secretKey) => ({
          SMS_PROVIDER: 'tencent',
          TENCENT_SECRET_ID: key.secretId,
          TENCENT_SECRET_KEY: secret,
          TENCENT_SMS_ENDPOINT: sim.url,
          TENCENT_SMS_SDK_APP_ID: '1400006666',
          TENCENT_SMS_SIGN_NAME: '租号市场',
          TENCENT_SMS_TEMPLATE_ID: '449739',
        }),
        setMode: (mode) => (sim.smsMode = mode),
        codeFor: (phone) => sim.lastTo(phone)?.[0],
        deliveries: () => sim.delivered.length,
        answers: () => sim.calls.map((c) => c.answered),
        lastDelivery: () => {
          const { sdkAppId, signName, templateId, params } = sim.delivered.at(-1) ?? {};
          return { sdkAppId, signName, templateId, paramCount: params?.length };
        },
        stop: () => sim.stop(),
      };
    },
  },
];

describe.each(PROVIDERS)('SMS through $name', (provider) => {
  // admin: a user is frozen through the back office, by a real admin session
  const own = providerStackPerSuite(() => provider.start(), { SMS_DAILY_LIMIT_PER_PHONE: '2' }, ['identity', 'admin']);

  const send = (phone: string, ip = newIp()) => own.client.post('/api/auth/sms/send', { phone }, undefined, from(ip));
  const logIn = (phone: string, code: string | undefined) => own.client.post('/api/auth/sms/login', { phone, code });
  const storedCode = (phone: string) => own.stack.services.identity!.ctx.redis.exists(own.stack.services.identity!.ctx.redisKey(`identity:sms:code:${phone}`));

  it('delivers the code through the provider and logs in with the code the phone received', async () => {
    const phone = newPhone();
    const sent = await send(phone);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ expires_in: 300, resend_after: 60 });
    const code = own.sim.codeFor(phone);
    expect(code).toMatch(/^\d{6}$/);
    expect(own.sim.lastDelivery()).toEqual(
      provider.name === 'aliyun'
        ? { signName: '租号市场', templateCode: 'SMS_465300001' }
        : { sdkAppId: '1400006666', signName: '租号市场', templateId: '449739', paramCount: 1 },
    );
    const login = await logIn(phone, code);
    expect(login.status).toBe(200);
    expect(login.body.user.phone_masked).toBe(`${phone.slice(0, 3)}****${phone.slice(-4)}`);
  });

  it('sends one message when two requests for one phone race; the other waits out the resend interval', async () => {
    const phone = newPhone();
    const delivered = own.sim.deliveries();
    const results = await Promise.all([send(phone), send(phone), send(phone)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    expect(own.sim.deliveries()).toBe(delivered + 1);
    expect((await logIn(phone, own.sim.codeFor(phone))).status).toBe(200);
  });

  it.each([
    { mode: 'down', what: 'down (HTTP 5xx)' },
    { mode: 'refused', what: 'refusing the account (a business error code)' },
    { mode: 'stall', what: 'not answering' },
  ] as const)(
    'answers 503 SMS_UNAVAILABLE when the provider is $what, storing no code and spending no daily count',
    async ({ mode }) => {
      const phone = newPhone();
      expect((await send(phone)).status).toBe(200);
      const earlier = own.sim.codeFor(phone);
      await forgetResendInterval(own.stack, phone);

      own.sim.setMode(mode);
      const delivered = own.sim.deliveries();
      // Three failures against a daily cap of two: none of them counts, and none holds the resend interval.
      for (let i = 0; i < 3; i++) {
        const res = await send(phone);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ code: 'SMS_UNAVAILABLE', status: 503 });
      }
      expect(own.sim.deliveries()).toBe(delivered);
      // The code sent before the outage is still the phone's live code.
      expect(await storedCode(phone)).toBe(1);

      own.sim.setMode('ok');
      const after = await send(phone);
      expect(after.status).toBe(200);
      expect(own.sim.deliveries()).toBe(delivered + 1);
      expect(own.sim.codeFor(phone)).toMatch(/^\d{6}$/);
      expect((await logIn(phone, own.sim.codeFor(phone))).status).toBe(200);
      if (earlier !== own.sim.codeFor(phone)) expect((await logIn(phone, earlier)).status).toBe(422);
    },
  );

  it('stores nothing when the very first send fails, so no code can log the phone in', async () => {
    const phone = newPhone();
    own.sim.setMode('down');
    expect((await send(phone)).status).toBe(503);
    expect(await storedCode(phone)).toBe(0);
    for (const code of ['000000', '123456']) expect((await logIn(phone, code)).body.code).toBe('SMS_CODE_INVALID');
  });

  it("maps the provider's frequency refusal to 429 SMS_FREQUENCY_LIMITED without storing a code", async () => {
    const phone = newPhone();
    own.sim.setMode('frequency');
    const res = await send(phone);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('SMS_FREQUENCY_LIMITED');
    expect(res.headers.get('retry-after')).toBe('60');
    expect(own.sim.answers().at(-1)).toBe(provider.frequencyCode);
    expect(await storedCode(phone)).toBe(0);
    // The resend interval stays taken after a frequency refusal: the provider is not asked again at once.
    own.sim.setMode('ok');
    expect((await send(phone)).body.code).toBe('RATE_LIMITED');
  });

  it('refuses to send a code to the phone of a frozen user, before asking the provider', async () => {
    const phone = newPhone();
    await send(phone);
    const session = (await logIn(phone, own.sim.codeFor(phone))).body;
    const support = await newAdmin(own.stack, ['customer_service']);
    expect((await own.client.post(`/api/admin/users/${session.user.id}/freeze`, { reason: 'fraud' }, support.token)).status).toBe(200);
    await forgetResendInterval(own.stack, phone);

    const calls = own.sim.answers().length;
    const res = await send(`+86${phone}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('USER_FROZEN');
    expect(own.sim.answers()).toHaveLength(calls);
    expect(await storedCode(phone)).toBe(0);
    const refusal = (await outboxEvents(own.stack, 'audit.recorded'))
      .map((e) => e.data)
      .find((d) => d.action === 'auth.sms_send' && d.biz_id === session.user.id);
    expect(refusal).toMatchObject({ result: 'failure', detail: { reason: 'user_frozen' } });
  });

  it("is refused by the provider when signed with the wrong secret (the simulator checks), surfacing 503", async () => {
    const forged = await startIdentityStack(own.sim.env('not-the-right-secret-for-this-key'));
    try {
      const phone = newPhone();
      const delivered = own.sim.deliveries();
      const res = await api(forged.url).post('/api/auth/sms/send', { phone });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SMS_UNAVAILABLE');
      expect(own.sim.answers().at(-1)).toBe(provider.signatureError);
      expect(own.sim.deliveries()).toBe(delivered);
    } finally {
      await forged.stop();
    }
  });
});
