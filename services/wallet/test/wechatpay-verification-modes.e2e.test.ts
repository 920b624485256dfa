import { eventually, startWechatPaySimulator, type Stack, type WechatPaySimulator } from '@market/testkit';
import { balanceOf, newUser, QUICK_PAYMENT_SCANS, startProviderStack, startRecharge, WECHATPAY_NOTIFY_URL, wechatPayEnv, type Caller } from './support';

const hex = (id: string) => id.replace(/-/g, '');

/** A recharge `user` opens and pays at WeChat Pay: its out_trade_no, and how the wallet answered the callback unless it was held back. */
async function paidRecharge(stack: Stack, sim: WechatPaySimulator, user: Caller, amount: number, deliver = true) {
  const no = hex((await startRecharge(stack, user, amount)).id);
  return { no, callback: await sim.pay(no, { deliver }) };
}

describe('WeChat Pay verified by platform certificate (a merchant from before the public key)', () => {
  let sim: WechatPaySimulator, stack: Stack;
  beforeAll(async () => {
    const signingWithCertificate = startWechatPaySimulator().then((started) => {
      started.signWith('certificate');
      return started;
    });
    ({ sim, stack } = await startProviderStack(signingWithCertificate, ['wallet'], (s) => ({ ...wechatPayEnv(s, 'certificate'), ...QUICK_PAYMENT_SCANS })));
  });
  afterAll(() => stack?.stop());

  it('credits a recharge on a callback signed with the platform certificate', async () => {
    const user = newUser();
    expect((await paidRecharge(stack, sim, user, 1_100)).callback).toEqual({ status: 204, text: '' });
    expect(await balanceOf(stack, user)).toMatchObject({ available: 1_100 });
  });

  it('believes the answers signed with the certificate: a lost callback is recovered by asking', async () => {
    const user = newUser();
    await paidRecharge(stack, sim, user, 1_300, false);
    await eventually(
      () => balanceOf(stack, user),
      (b) => b.available === 1_300,
    );
  });

  it('refuses a callback signed with a WeChat Pay public key it was not given', async () => {
    const { no } = await paidRecharge(stack, sim, newUser(), 900, false);
    sim.signWith('publicKey');
    const callback = sim.callbackFor(no);
    sim.signWith('certificate');
    expect(callback.headers['Wechatpay-Serial']).toBe(sim.publicKeyId);
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, callback)).status).toBe(400);
  });
});

describe('WeChat Pay verified by public key and platform certificate at once (a merchant moving to the public key)', () => {
  let sim: WechatPaySimulator, stack: Stack;
  beforeAll(async () => {
    ({ sim, stack } = await startProviderStack(startWechatPaySimulator(), ['wallet'], (s) => wechatPayEnv(s, 'both')));
  });
  afterAll(() => stack?.stop());

  it('takes callbacks and answers signed either way, choosing the key by the serial', async () => {
    const user = newUser();
    for (const mode of ['certificate', 'publicKey', 'certificate'] as const) {
      sim.signWith(mode);
      expect((await paidRecharge(stack, sim, user, 500)).callback).toEqual({ status: 204, text: '' });
    }
    expect(await balanceOf(stack, user)).toMatchObject({ available: 1_500 });
  });

  it('refuses a callback whose serial names neither key, or whose signature is the other key’s under this serial', async () => {
    const user = newUser();
    const { no } = await paidRecharge(stack, sim, user, 700, false);
    sim.signWith('publicKey');
    const genuine = sim.callbackFor(no);
    const unknown = { ...genuine, headers: { ...genuine.headers, 'Wechatpay-Serial': 'PUB_KEY_ID_0000000000000000000000000000' } };
    const crossed = { ...genuine, headers: { ...genuine.headers, 'Wechatpay-Serial': sim.platformSerial } };
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, unknown)).status).toBe(400);
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, crossed)).status).toBe(400);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 0 });
    expect((await sim.sendCallback(WECHATPAY_NOTIFY_URL, genuine)).status).toBe(204);
    expect(await balanceOf(stack, user)).toMatchObject({ available: 700 });
  });
});
