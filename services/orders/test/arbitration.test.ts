import { arbitratedSettlement } from '../src/domain/arbitration';

const escrow = { rent: 2400, deposit: 5000, amount: 7400 };
const BPS = 500;

describe('what an arbitration pays out', () => {
  it('holds the escrow on mark_abnormal', () => {
    expect(arbitratedSettlement('mark_abnormal', escrow, undefined, null, BPS)).toBeNull();
  });

  it('completes by the breakdown, else the last checkout, else the full rent without deduction', () => {
    expect(arbitratedSettlement('complete', escrow, { consumption: 2000, deposit_deduction: 1000 }, { consumption: 1600, deposit_deduction: 0 }, BPS)).toEqual({
      ok: true,
      settlement: { overtime_minutes: 0, overtime_fee: 0, consumption: 2000, deposit_deduction: 1000, refund: 4400, owner_income: 2900, platform_fee: 100 },
    });
    expect(arbitratedSettlement('complete', escrow, undefined, { consumption: 1600, deposit_deduction: 500 }, BPS)).toEqual({
      ok: true,
      settlement: { overtime_minutes: 0, overtime_fee: 0, consumption: 1600, deposit_deduction: 500, refund: 5300, owner_income: 2020, platform_fee: 80 },
    });
    // ADR 0071: the checkout's overtime completes with it; a breakdown replaces it, overtime included
    const overtime = { overtime_minutes: 25, overtime_fee: 333 };
    expect(arbitratedSettlement('complete', escrow, undefined, { consumption: 2400, deposit_deduction: 0, ...overtime }, BPS)).toEqual({
      ok: true,
      settlement: { ...overtime, consumption: 2400, deposit_deduction: 0, refund: 4667, owner_income: 2597, platform_fee: 136 },
    });
    expect(arbitratedSettlement('complete', escrow, { consumption: 2400, deposit_deduction: 333 }, { consumption: 2400, deposit_deduction: 0, ...overtime }, BPS)).toEqual({
      ok: true,
      settlement: { overtime_minutes: 0, overtime_fee: 0, consumption: 2400, deposit_deduction: 333, refund: 4667, owner_income: 2613, platform_fee: 120 },
    });
    expect(arbitratedSettlement('complete', escrow, undefined, null, BPS)).toEqual({
      ok: true,
      settlement: { overtime_minutes: 0, overtime_fee: 0, consumption: 2400, deposit_deduction: 0, refund: 5000, owner_income: 2280, platform_fee: 120 },
    });
  });

  it('closes with everything back to the renter, or with a breakdown by the same split as a completion', () => {
    expect(arbitratedSettlement('close', escrow, undefined, { consumption: 2400, deposit_deduction: 0 }, BPS)).toEqual({
      ok: true,
      settlement: { overtime_minutes: 0, overtime_fee: 0, consumption: 0, deposit_deduction: 0, refund: 7400, owner_income: 0, platform_fee: 0 },
    });
    expect(arbitratedSettlement('close', escrow, { consumption: 1199, deposit_deduction: 0 }, null, BPS)).toEqual({
      ok: true,
      settlement: { overtime_minutes: 0, overtime_fee: 0, consumption: 1199, deposit_deduction: 0, refund: 6201, owner_income: 1140, platform_fee: 59 },
    });
  });

  it('refuses a breakdown that breaks the checkout invariants', () => {
    expect(arbitratedSettlement('close', escrow, { consumption: 2401, deposit_deduction: 5001 }, null, BPS)).toEqual({
      ok: false,
      errors: [
        { path: 'consumption', message: expect.any(String) },
        { path: 'deposit_deduction', message: expect.any(String) },
      ],
    });
  });
});
