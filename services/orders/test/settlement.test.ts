import { MAX_MONEY_FEN } from '@market/contracts';
import { defaultConsumption, platformFee, priceOrder, refundAll, settle, settlementErrors, type Escrow } from '../src/domain/settlement';

const escrow: Escrow = { rent: 2400, deposit: 5000, amount: 7400 };

describe('settlement money math', () => {
  it('takes the fee from the consumption, rounded down, and gives the owner the rest plus the deduction', () => {
    const result = settle(escrow, { consumption: 1600, deposit_deduction: 1000 }, 500);
    expect(result).toEqual({
      ok: true,
      settlement: { consumption: 1600, deposit_deduction: 1000, refund: 4800, owner_income: 2520, platform_fee: 80 },
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
      settlement: { consumption: 0, deposit_deduction: 0, refund: 7400, owner_income: 0, platform_fee: 0 },
    });
    expect(settle(escrow, { consumption: 2400, deposit_deduction: 5000 }, 500)).toEqual({
      ok: true,
      settlement: { consumption: 2400, deposit_deduction: 5000, refund: 0, owner_income: 7280, platform_fee: 120 },
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
    const good = { consumption: 1600, deposit_deduction: 0, refund: 5800, owner_income: 1520, platform_fee: 80 };
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
    expect(refundAll(escrow)).toEqual({ consumption: 0, deposit_deduction: 0, refund: 7400, owner_income: 0, platform_fee: 0 });
  });
});
