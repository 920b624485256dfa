import { loadConfig, baseEnvShape } from '@market/shared/config';
import { createLogger } from '@market/shared/logging';
import { createPaymentChannels } from '../src/adapters/providers';
import { walletEnv } from '../src/config';
import { GATEWAY_CLEARING, orderEscrow, platformRevenue, REVENUE_SHARDS, userAvailable } from '../src/domain/accounts';
import { InsufficientFunds, postTransfers } from '../src/domain/ledger';
import { paymentMove, PAYMENT_MOVES, rechargeAmountError } from '../src/domain/payment';
import { resolveChannel } from '../src/domain/payment-channel';
import { fenToYuan, yuanToFen } from '../src/domain/yuan';
import { paygateSignatureError, signPaygateBody } from '../src/domain/paygate-signature';
import { fullRefund, payoutsFor, UnsettleableOrder } from '../src/domain/settlement';

const SECRET = 'paygate-secret-for-rules-test-000000000000';

describe('paygate signature', () => {
  const raw = Buffer.from('{"payment_id":"p","amount":100}');
  const now = 1_790_000_000;

  it('accepts the signature a gateway makes over the exact bytes, within 300 s either way', () => {
    expect(paygateSignatureError(SECRET, signPaygateBody(SECRET, raw, now), raw, now)).toBeNull();
    expect(paygateSignatureError(SECRET, signPaygateBody(SECRET, raw, now - 300), raw, now)).toBeNull();
    expect(paygateSignatureError(SECRET, signPaygateBody(SECRET, raw, now + 300), raw, now)).toBeNull();
  });

  it('accepts any one of several v1 signatures (secret rotation)', () => {
    const good = signPaygateBody(SECRET, raw, now).split(',')[1];
    expect(paygateSignatureError(SECRET, `t=${now},v1=${'ab'.repeat(32)},${good}`, raw, now)).toBeNull();
  });

  it('refuses other bytes, another secret, a stale or future timestamp, and malformed headers', () => {
    const header = signPaygateBody(SECRET, raw, now);
    expect(paygateSignatureError(SECRET, header, Buffer.from(`${raw} `), now)).toMatch(/does not match/);
    expect(paygateSignatureError(`${SECRET}x`, header, raw, now)).toMatch(/does not match/);
    expect(paygateSignatureError(SECRET, signPaygateBody(SECRET, raw, now - 301), raw, now)).toMatch(/tolerance/);
    expect(paygateSignatureError(SECRET, signPaygateBody(SECRET, raw, now + 301), raw, now)).toMatch(/tolerance/);
    for (const bad of [undefined, '', 't=', `t=${now}`, `v1=${'0'.repeat(64)}`, `t=abc,v1=00`, `t=${now},v1=zz`]) {
      expect(paygateSignatureError(SECRET, bad, raw, now)).not.toBeNull();
    }
  });
});

describe('settlement figures', () => {
  it('pay owner income, platform fee and the rest to the renter, skipping zero parts', () => {
    expect(payoutsFor(13_000, { amount: 13_000, consumption: 6_000, deposit_deduction: 1_001, refund: 5_999, owner_income: 6_651, platform_fee: 350 })).toEqual([
      { to: 'owner', amount: 6_651, bizType: 'settlement_income' },
      { to: 'platform', amount: 350, bizType: 'platform_fee' },
      { to: 'renter', amount: 5_999, bizType: 'settlement_refund' },
    ]);
    expect(payoutsFor(100, { amount: 100, consumption: 0, deposit_deduction: 0, refund: 100, owner_income: 0, platform_fee: 0 })).toEqual([
      { to: 'renter', amount: 100, bizType: 'order_refund' },
    ]);
    expect(fullRefund(0)).toEqual([]);
  });

  it('pay the overtime fee to the owner as rent earned, less its platform fee (ADR 0071)', () => {
    // rent 6 000 + deposit 7 000; overtime 1 500 from the deposit; fee 5 % of 7 500
    expect(payoutsFor(13_000, { amount: 13_000, consumption: 6_000, overtime_fee: 1_500, deposit_deduction: 0, refund: 5_500, owner_income: 7_125, platform_fee: 375 })).toEqual([
      { to: 'owner', amount: 7_125, bizType: 'settlement_income' },
      { to: 'platform', amount: 375, bizType: 'platform_fee' },
      { to: 'renter', amount: 5_500, bizType: 'settlement_refund' },
    ]);
  });

  it.each([
    ['an amount other than the escrow', { amount: 12_999, consumption: 6_000, deposit_deduction: 1_000, refund: 5_999, owner_income: 6_650, platform_fee: 350 }],
    ['parts that do not add up to the amount', { amount: 13_000, consumption: 6_000, deposit_deduction: 1_000, refund: 5_999, owner_income: 6_650, platform_fee: 350 }],
    ['income and fee other than what was earned', { amount: 13_000, consumption: 6_000, deposit_deduction: 1_000, refund: 6_000, owner_income: 6_651, platform_fee: 350 }],
    ['a negative part', { amount: 13_000, consumption: 14_000, deposit_deduction: 0, refund: -1_000, owner_income: 13_300, platform_fee: 700 }],
    ['an overtime fee left out of the sum', { amount: 13_000, consumption: 6_000, overtime_fee: 1_500, deposit_deduction: 0, refund: 7_000, owner_income: 7_125, platform_fee: 375 }],
    ['an overtime fee the owner is not paid', { amount: 13_000, consumption: 6_000, overtime_fee: 1_500, deposit_deduction: 0, refund: 5_500, owner_income: 5_700, platform_fee: 300 }],
    ['a negative overtime fee', { amount: 13_000, consumption: 6_000, overtime_fee: -500, deposit_deduction: 0, refund: 7_500, owner_income: 5_225, platform_fee: 275 }],
    ['a fraction of a fen', { amount: 13_000, consumption: 6_000.5, deposit_deduction: 0, refund: 6_999.5, owner_income: 5_700.5, platform_fee: 300 }],
  ])('refuse %s', (_, figures) => {
    expect(() => payoutsFor(13_000, figures)).toThrow(UnsettleableOrder);
  });
});

describe('platform revenue accounts', () => {
  it('take each order’s fee into one of the shards, the same one every time, spread over all of them', () => {
    const ids = Array.from({ length: 800 }, (_, i) => `0193a1b2-7c3d-7e4f-8a9b-${String(i).padStart(12, '0')}`);
    const keys = ids.map((id) => platformRevenue(id).key);
    expect(keys.every((key) => /^platform:revenue:\d{2}$/.test(key))).toBe(true);
    expect(platformRevenue(ids[7]!)).toEqual(platformRevenue(ids[7]!));
    const perShard = new Map<string, number>();
    for (const key of keys) perShard.set(key, (perShard.get(key) ?? 0) + 1);
    expect(perShard.size).toBe(REVENUE_SHARDS);
    expect(Math.min(...perShard.values())).toBeGreaterThan(800 / REVENUE_SHARDS / 3);
  });
});

describe('ledger postings', () => {
  const alice = userAvailable('0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b');
  const escrow = orderEscrow('0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c');
  const revenue = platformRevenue('0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c');
  const move = (from: typeof alice, to: typeof alice, amount: number) => ({ from, to, amount, bizType: 'adjustment' as const, orderId: null, paymentId: null });

  it('write a debit and a credit per transfer with running balances that sum to zero', () => {
    const postings = postTransfers(new Map(), [move(GATEWAY_CLEARING, alice, 500), move(alice, escrow, 300), move(escrow, revenue, 300)]);
    expect(postings.map((p) => [p.account.key, p.amount, p.balanceAfter])).toEqual([
      ['gateway:clearing', -500, -500],
      [alice.key, 500, 500],
      [alice.key, -300, 200],
      [escrow.key, 300, 300],
      [escrow.key, -300, 0],
      [revenue.key, 300, 300],
    ]);
    expect(postings.reduce((sum, p) => sum + p.amount, 0)).toBe(0);
  });

  it('never take a user, escrow or platform account below zero', () => {
    expect(() => postTransfers(new Map([[alice.key, 299]]), [move(alice, escrow, 300)])).toThrow(InsufficientFunds);
    expect(() => postTransfers(new Map(), [move(escrow, alice, 1)])).toThrow(InsufficientFunds);
    expect(() => postTransfers(new Map(), [move(alice, alice, 1)])).toThrow();
    expect(() => postTransfers(new Map([[alice.key, 10]]), [move(alice, escrow, 0)])).toThrow();
  });
});

describe('recharge payments', () => {
  it('move from pending once; out of a final state only a late success, which credits', () => {
    expect(PAYMENT_MOVES.filter((m) => m.from !== 'pending').every((m) => m.on === 'succeeded' && m.late)).toBe(true);
    expect(paymentMove('pending', 'succeeded')).toMatchObject({ to: 'succeeded' });
    expect(paymentMove('pending', 'succeeded')?.late).toBeUndefined();
    expect(paymentMove('expired', 'succeeded')).toMatchObject({ to: 'succeeded', late: true });
    expect(paymentMove('failed', 'succeeded')).toMatchObject({ to: 'succeeded', late: true });
    for (const on of ['succeeded', 'failed', 'expired'] as const) expect(paymentMove('succeeded', on)).toBeNull();
    for (const final of ['failed', 'expired'] as const) {
      for (const on of ['failed', 'expired'] as const) expect(paymentMove(final, on)).toBeNull();
    }
  });

  it('are served by the named channel, the sandbox standing in for a real one in development, or the first enabled', () => {
    expect(resolveChannel(['alipay', 'sandbox'], undefined)).toEqual({ provider: 'alipay', method: 'alipay' });
    expect(resolveChannel(['sandbox'], 'wechat')).toEqual({ provider: 'sandbox', method: 'wechat' });
    expect(resolveChannel(['sandbox', 'alipay'], 'alipay')).toEqual({ provider: 'alipay', method: 'alipay' });
    expect(resolveChannel(['wechatpay'], 'wechat')).toEqual({ provider: 'wechatpay', method: 'wechat' });
    expect(resolveChannel(['alipay'], 'wechatpay')).toBeNull();
    expect(resolveChannel(['alipay'], 'sandbox')).toBeNull();
  });

  it('write money as exact yuan for the providers', () => {
    expect([0, 1, 10, 100, 12_345, 5_000_000].map(fenToYuan)).toEqual(['0.00', '0.01', '0.10', '1.00', '123.45', '50000.00']);
    expect(['123.45', '123.4', '123', '0.01'].map(yuanToFen)).toEqual([12_345, 12_340, 12_300, 1]);
    for (const bad of ['', '1.234', '-1.00', '1e3', ' 1.00', undefined]) expect(yuanToFen(bad)).toBeNull();
  });

  it('keep amounts within the configured limits', () => {
    const limits = { minFen: 100, maxFen: 5_000_000 };
    expect(rechargeAmountError(100, limits)).toBeNull();
    expect(rechargeAmountError(5_000_000, limits)).toBeNull();
    expect(rechargeAmountError(99, limits)).toMatch(/at least 100/);
    expect(rechargeAmountError(5_000_001, limits)).toMatch(/at most 5000000/);
  });
});

describe('the sandbox payment gateway', () => {
  it('refuses to start anywhere but development, as does a default PAYGATE_SECRET', () => {
    const config = loadConfig({ ...baseEnvShape, ...walletEnv }, { NODE_ENV: 'development' });
    const log = createLogger('wallet', 'silent');
    for (const NODE_ENV of ['production', 'test', 'staging']) {
      expect(() => createPaymentChannels({ ...config, NODE_ENV }, null as never, log)).toThrow(`PAYGATE_PROVIDER=sandbox is for development (NODE_ENV is ${NODE_ENV})`);
    }
    expect(() => loadConfig({ ...baseEnvShape, ...walletEnv }, { NODE_ENV: 'test', INTERNAL_ASSERTION_SECRET: 'x'.repeat(40) })).toThrow(/PAYGATE_SECRET/);
    // a channel missing its keys names what is missing
    expect(() => createPaymentChannels({ ...config, PAYGATE_PROVIDER: ['alipay'], ALIPAY_APP_ID: '2021' }, null as never, log)).toThrow(
      'the alipay channel needs ALIPAY_PRIVATE_KEY, ALIPAY_NOTIFY_URL, ALIPAY_PUBLIC_KEY (public-key mode) or ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT, ALIPAY_ROOT_CERT (certificate mode)',
    );
    expect(() => createPaymentChannels({ ...config, PAYGATE_PROVIDER: ['wechatpay'], WECHATPAY_MCH_ID: '1900000001' }, null as never, log)).toThrow(
      'the wechatpay channel needs WECHATPAY_APP_ID, WECHATPAY_PRIVATE_KEY, WECHATPAY_API_V3_KEY, WECHATPAY_NOTIFY_URL, ' +
        'WECHATPAY_MERCHANT_SERIAL (or WECHATPAY_CERTIFICATE), WECHATPAY_PUBLIC_KEY with WECHATPAY_PUBLIC_KEY_ID, or WECHATPAY_PLATFORM_CERTIFICATES',
    );
    expect(loadConfig({ ...baseEnvShape, ...walletEnv }, { NODE_ENV: 'development', PAYGATE_PROVIDER: 'alipay, sandbox' }).PAYGATE_PROVIDER).toEqual(['alipay', 'sandbox']);
    expect(() => loadConfig({ ...baseEnvShape, ...walletEnv }, { NODE_ENV: 'development', PAYGATE_PROVIDER: 'alipay,paypal' })).toThrow(/PAYGATE_PROVIDER/);
    expect(() => loadConfig({ ...baseEnvShape, ...walletEnv }, { NODE_ENV: 'production' })).toThrow(/PAYGATE_SECRET/);
  });
});
