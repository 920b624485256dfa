import { eventually, startWechatPaySimulator, type Stack, type WechatPaySimulator } from '@market/testkit';
import { balanceOf, newUser, QUICK_PAYMENT_SCANS, startRecharge, startStackWith, WECHATPAY_NOTIFY_URL, wechatPayEnv } from './support';

const hex = (id: string) => id.replace(/-/g, '');

describe('WeChat Pay verified by platform certificate (a merchant from before the public key)', () => {
  let sim: WechatPaySimulator;
  let stack: Stack;

  beforeAll(async () => {
    sim = await startWechatPaySimulator();
    sim.signWith('certificate');
    stack = await startStackWith(sim, ['wallet'], { ...wechatPayEnv(sim, 'certificate'), ...QUICK_PAYMENT_SCANS });
  });
  afterAll(() => stack?.stop());

  it('credits a recharge on a callback signed with the platform certificate', async () => {
    const user = newUser();
    const started = await startRecharge(stack, user, 1_100);
    expect(await sim.pay(hex(started.id))).toEqual({ status: 204, text: '' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 1_100 });
  });

  it('believes the answers signed with the certificate: a lost callback is recovered by asking', async () => {
    const user = newUser();
    const started = await startRecharge(stack, user, 1_300);
    await sim.pay(hex(started.id), { deliver: false });
    await eventually(
      () => balanceOf(stack, user),
      (b) => b.available === 1_300,
    );
  });

  it('refuses a callback signed with a WeChat Pay public key it was not given', async () => {
    const user = newUser();
    const started = await startRecharge(stack, user, 900);
    await sim.pay(hex(started.id), { deliver: false });
    sim.signWith('publicKey');
    const callback = sim.callbackFor(hex(started.id));
    sim.signWith('certificate');
    expect(callback.headers['Wechatpay-Serial']).toBe(sim.publicKeyId);
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, callback)).status).toBe(400);
  });
});

describe('WeChat Pay verified by public key and platform certificate at once (a merchant moving to the public key)', () => {
  let sim: WechatPaySimulator;
  let stack: Stack;

  beforeAll(async () => {
    sim = await startWechatPaySimulator();
    stack = await startStackWith(sim, ['wallet'], wechatPayEnv(sim, 'both'));
  });
  afterAll(() => stack?.stop());

  it('takes callbacks and answers signed either way, choosing the key by the serial', async () => {
    const user = newUser();
    for (const mode of ['certificate', 'publicKey', 'certificate'] as const) {
      sim.signWith(mode);
      const started = await startRecharge(stack, user, 500);
      expect(await sim.pay(hex(started.id))).toEqual({ status: 204, text: '' });
    }
    expect(await balanceOf(stack, user)).toMatchObject({ available: 1_500 });
  });

  it('refuses a callback whose serial names neither key, or whose signature is the other key’s under this serial', async () => {
    const user = newUser();
    const started = await startRecharge(stack, user, 700);
    await sim.pay(hex(started.id), { deliver: false });
    sim.signWith('publicKey');
    const genuine = sim.callbackFor(hex(started.id));
    const unknown = { ...genuine, headers: { ...genuine.headers, 'Wechatpay-Serial': 'PUB_KEY_ID_0000000000000000000000000000' } };
    const crossed = { ...genuine, headers: { ...genuine.headers, 'Wechatpay-Serial': sim.platformSerial } };
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, unknown)).status).toBe(400);
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, crossed)).status).toBe(400);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, genuine)).status).toBe(204);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 700 });
  });
});
