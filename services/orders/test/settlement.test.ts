import { MAX_MONEY_FEN } from '@market/contracts';
import { SYSTEM_CONFIG_DEFAULTS } from '@market/contracts';
import {
  automaticCheckoutAt,
  defaultConsumption,
  overtimeAt,
  platformFee,
  priceOrder,
  refundAll,
  settle,
  settlementErrors,
  type Escrow,
} from '../src/domain/settlement';

const escrow: Escrow = { rent: 2400, deposit: 5000, amount: 7400 };

describe('settlement money math', () => {
  it('takes the fee from the consumption, rounded down, and gives the owner the rest plus the deduction', () => {
    const result = settle(escrow, { consumption: 1600, deposit_deduction: 1000 }, 500);
    expect(result).toEqual({
      ok: true,
      settlement: { consumption: 1600, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 1000, refund: 4800, owner_income: 2520, platform_fee: 80 },
    });
  });

  it('rounds the fee down to whole fen', () => {
    expect(platformFee(19, 500)).toBe(0);
    expect(platformFee(20, 500)).toBe(1);
    expect(platformFee(39, 500)).toBe(1);
    expect(platformFee(9999, 1)).toBe(0);
    expect(platformFee(10_000, 1)).toBe(1);
  });

  it('holds every invariant for every split of a small escrow at several rates', () => {
    const small: Escrow = { rent: 37, deposit: 11, amount: 48 };
    for (const bps of [0, 1, 333, 500, 5000, 10_000]) {
      for (let consumption = 0; consumption <= small.rent; consumption += 1) {
        for (let deduction = 0; deduction <= small.deposit; deduction += 1) {
          const result = settle(small, { consumption, deposit_deduction: deduction }, bps);
          if (!result.ok) throw new Error(`refused ${consumption}/${deduction}/${bps}`);
          expect(settlementErrors(small, result.settlement, bps)).toEqual([]);
        }
      }
    }
  });

  it('settles the extremes: nothing consumed, everything consumed and deducted, a free listing', () => {
    expect(settle(escrow, { consumption: 0, deposit_deduction: 0 }, 500)).toEqual({
      ok: true,
      settlement: { consumption: 0, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 0, refund: 7400, owner_income: 0, platform_fee: 0 },
    });
    expect(settle(escrow, { consumption: 2400, deposit_deduction: 5000 }, 500)).toEqual({
      ok: true,
      settlement: { consumption: 2400, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 5000, refund: 0, owner_income: 7280, platform_fee: 120 },
    });
    expect(settle({ rent: 0, deposit: 0, amount: 0 }, { consumption: 0, deposit_deduction: 0 }, 500).ok).toBe(true);
  });

  it('refuses consumption above the rent and a deduction above the deposit or below zero, naming the field', () => {
    expect(settle(escrow, { consumption: 2401, deposit_deduction: 0 }, 500)).toEqual({
      ok: false,
      errors: [{ path: 'consumption', message: expect.stringContaining('2400') }],
    });
    expect(settle(escrow, { consumption: 0, deposit_deduction: 5001 }, 500)).toEqual({
      ok: false,
      errors: [{ path: 'deposit_deduction', message: expect.stringContaining('5000') }],
    });
    const negative = settle(escrow, { consumption: -1, deposit_deduction: 0.5 }, 500);
    expect(negative.ok).toBe(false);
    if (!negative.ok) expect(negative.errors.map((e) => e.path)).toEqual(['consumption', 'deposit_deduction']);
  });

  it('detects a breakdown that creates or loses money', () => {
    const good = { consumption: 1600, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 0, refund: 5800, owner_income: 1520, platform_fee: 80 };
    expect(settlementErrors(escrow, good, 500)).toEqual([]);
    expect(settlementErrors(escrow, { ...good, refund: 5801 }, 500).map((e) => e.path)).toEqual(['settlement']);
    expect(settlementErrors(escrow, { ...good, owner_income: 1521 }, 500).map((e) => e.path)).toEqual(['settlement']);
    expect(settlementErrors(escrow, { ...good, owner_income: 1521, platform_fee: 79 }, 500).map((e) => e.path)).toEqual(['settlement']);
  });

  it('settles the largest amounts exactly', () => {
    const big: Escrow = { rent: MAX_MONEY_FEN - 1, deposit: 1, amount: MAX_MONEY_FEN };
    const result = settle(big, { consumption: big.rent, deposit_deduction: 1 }, 9999);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.settlement.platform_fee).toBe(Math.floor(((MAX_MONEY_FEN - 1) * 9999) / 10_000));
      expect(result.settlement.owner_income + result.settlement.platform_fee).toBe(MAX_MONEY_FEN);
    }
  });

  it('defaults the consumption to the started hours, capped at the rent', () => {
    const start = new Date('2026-11-22T10:00:00.000Z');
    const at = (ms: number) => new Date(start.getTime() + ms);
    expect(defaultConsumption(800, 2400, start, start)).toBe(0);
    expect(defaultConsumption(800, 2400, start, at(1))).toBe(800);
    expect(defaultConsumption(800, 2400, start, at(3_600_000))).toBe(800);
    expect(defaultConsumption(800, 2400, start, at(3_600_001))).toBe(1600);
    expect(defaultConsumption(800, 2400, start, at(10 * 3_600_000))).toBe(2400);
    expect(defaultConsumption(800, 2400, start, at(-5000))).toBe(0);
  });

  it('prices an order and refuses one whose amount exceeds the largest a field may hold', () => {
    expect(priceOrder(3, 800, 5000, MAX_MONEY_FEN)).toEqual({ rent: 2400, deposit: 5000, amount: 7400 });
    expect(priceOrder(720, MAX_MONEY_FEN, 0, MAX_MONEY_FEN)).toBeNull();
    expect(priceOrder(1, MAX_MONEY_FEN, 1, MAX_MONEY_FEN)).toBeNull();
    expect(refundAll(escrow)).toEqual({ consumption: 0, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 0, refund: 7400, owner_income: 0, platform_fee: 0 });
  });
});

describe('overtime past the grace (docs/rules.md §4 Overtime, ADR 0071)', () => {
  const MINUTE = 60_000;
  const ENDS = new Date('2026-11-22T11:00:00.000Z');
  const RENEWED_END = new Date('2026-11-22T13:00:00.000Z');
  const settings = { ...SYSTEM_CONFIG_DEFAULTS, 'order.grace_minutes': 5, 'order.checkout_grace_minutes': 30 };
  const order = { ends_at: ENDS, hourly_price: 800, deposit: 5000 };
  const after = (end: Date, ms: number) => new Date(end.getTime() + ms);

  it.each([
    ['before the end', -MINUTE, 0, 0],
    ['at the end: 0 minutes', 0, 0, 0],
    ['a moment past the end: a started minute, within the grace', 1, 0, 0],
    ['exactly the grace', 5 * MINUTE, 0, 0],
    ['a moment past the grace: the sixth started minute', 5 * MINUTE + 1, 1, 13],
    ['grace + 1 minute', 6 * MINUTE, 1, 13],
    ['grace + 3 minutes: 3 × 800 / 60 = 40 fen exactly', 8 * MINUTE, 3, 40],
    ['grace + 1 hour: the hourly price', 65 * MINUTE, 60, 800],
    ['grace + 7 hours: 5 600 fen, capped at the 5 000 deposit', 425 * MINUTE, 420, 5000],
  ])('%s', (_, pastEnd, minutes, fee) => {
    expect(overtimeAt(order, after(ENDS, pastEnd), settings, MINUTE)).toEqual({ overtime_minutes: minutes, overtime_fee: fee });
  });

  it('counts from the renewed end, charges nothing before a rental starts and nothing with no price', () => {
    expect(overtimeAt({ ...order, ends_at: RENEWED_END }, after(ENDS, 65 * MINUTE), settings, MINUTE)).toEqual({ overtime_minutes: 0, overtime_fee: 0 });
    expect(overtimeAt({ ...order, ends_at: RENEWED_END }, after(RENEWED_END, 6 * MINUTE), settings, MINUTE)).toEqual({ overtime_minutes: 1, overtime_fee: 13 });
    expect(overtimeAt({ ...order, ends_at: null }, after(ENDS, 65 * MINUTE), settings, MINUTE)).toEqual({ overtime_minutes: 0, overtime_fee: 0 });
    expect(overtimeAt({ ...order, hourly_price: 0 }, after(ENDS, 65 * MINUTE), settings, MINUTE)).toEqual({ overtime_minutes: 60, overtime_fee: 0 });
  });

  it('frees every minute of the grace as configured, none with a grace of 0', () => {
    const noGrace = { ...settings, 'order.grace_minutes': 0 };
    expect(overtimeAt(order, ENDS, noGrace, MINUTE)).toEqual({ overtime_minutes: 0, overtime_fee: 0 });
    expect(overtimeAt(order, after(ENDS, 1), noGrace, MINUTE)).toEqual({ overtime_minutes: 1, overtime_fee: 13 });
    expect(overtimeAt(order, after(ENDS, 60 * MINUTE), { ...settings, 'order.grace_minutes': 60 }, MINUTE)).toEqual({ overtime_minutes: 0, overtime_fee: 0 });
    // a shortened minute (tests) counts its own minutes
    expect(overtimeAt(order, after(ENDS, 6_000), settings, 1_000)).toEqual({ overtime_minutes: 1, overtime_fee: 13 });
  });

  it('counts the automatic checkout to its deadline however late the scan comes', () => {
    expect(automaticCheckoutAt(ENDS, after(ENDS, 90 * MINUTE), settings, MINUTE)).toEqual(after(ENDS, 30 * MINUTE));
    expect(automaticCheckoutAt(ENDS, after(ENDS, 10 * MINUTE), settings, MINUTE)).toEqual(after(ENDS, 10 * MINUTE));
    expect(overtimeAt(order, automaticCheckoutAt(ENDS, after(ENDS, 90 * MINUTE), settings, MINUTE), settings, MINUTE)).toEqual({
      overtime_minutes: 25,
      overtime_fee: 333,
    });
  });

  it('splits the overtime fee as rent from the deposit: the owner earns it less the fee, the renter gets the rest', () => {
    const result = settle(escrow, { consumption: 2400, deposit_deduction: 0, overtime_minutes: 25, overtime_fee: 333 }, 500);
    // fee floor(2 733 × 5 %) = 136; refund 7 400 − 2 400 − 333
    expect(result).toEqual({
      ok: true,
      settlement: { consumption: 2400, overtime_minutes: 25, overtime_fee: 333, deposit_deduction: 0, refund: 4667, owner_income: 2597, platform_fee: 136 },
    });
    if (result.ok) expect(settlementErrors(escrow, result.settlement, 500)).toEqual([]);
  });

  it('caps an owner’s deduction at what the deposit holds after the overtime fee', () => {
    const withOvertime = { consumption: 2400, overtime_minutes: 25, overtime_fee: 333 };
    const full = settle(escrow, { ...withOvertime, deposit_deduction: 4667 }, 500);
    expect(full).toMatchObject({ ok: true, settlement: { refund: 0, owner_income: 7400 - platformFee(2733, 500), platform_fee: 136 } });
    expect(settle(escrow, { ...withOvertime, deposit_deduction: 4668 }, 500)).toEqual({
      ok: false,
      errors: [{ path: 'deposit_deduction', message: expect.stringContaining('(4667)') }],
    });
    expect(settle(escrow, { consumption: 0, deposit_deduction: 0, overtime_minutes: 999, overtime_fee: 5001 }, 500)).toEqual({
      ok: false,
      errors: [{ path: 'overtime_fee', message: expect.stringContaining('5000') }],
    });
  });

  it('detects a breakdown that leaves the overtime fee out of the sums or the platform fee', () => {
    const good = { consumption: 2400, overtime_minutes: 25, overtime_fee: 333, deposit_deduction: 0, refund: 4667, owner_income: 2597, platform_fee: 136 };
    expect(settlementErrors(escrow, good, 500)).toEqual([]);
    expect(settlementErrors(escrow, { ...good, refund: 5000 }, 500).map((e) => e.path)).toEqual(['settlement']);
    expect(settlementErrors(escrow, { ...good, owner_income: 2280, platform_fee: 120 }, 500).map((e) => e.path)).toEqual(['settlement', 'settlement']);
  });
});
