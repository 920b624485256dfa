import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { BreakdownForm } from '../src/components/BreakdownForm';
import { settle, type Proposal } from '@market/contracts';

const escrow = { rent: 2000, deposit: 4000, amount: 6000 };

function Harness({ initial }: { initial: Partial<Proposal> }) {
  const [value, setValue] = useState(initial);
  return <BreakdownForm escrow={escrow} commissionBps={500} value={value} onChange={setValue} />;
}

describe('the breakdown preview (the settlement rule of the contracts)', () => {
  it('splits the escrow as the server does: fee from the consumption, the rest to the owner, everything else back', () => {
    expect(settle(escrow, { consumption: 1000, deposit_deduction: 500 }, 500)).toEqual({
      ok: true,
      settlement: { consumption: 1000, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 500, platform_fee: 50, owner_income: 1450, refund: 4500 },
    });
    // the fee rounds down to whole fen
    expect(settle(escrow, { consumption: 19, deposit_deduction: 0 }, 500)).toMatchObject({ ok: true, settlement: { platform_fee: 0, owner_income: 19, refund: 5981 } });
  });

  it('holds every invariant: owner income + fee = consumption + deduction, and the three parts = the amount paid', () => {
    for (const consumption of [0, 1, 999, 2000]) {
      for (const deposit_deduction of [0, 7, 4000]) {
        const result = settle(escrow, { consumption, deposit_deduction }, 1234);
        if (!result.ok) throw new Error('should be valid');
        const p = result.settlement;
        expect(p.owner_income + p.platform_fee).toBe(consumption + deposit_deduction);
        expect(p.consumption + p.deposit_deduction + p.refund).toBe(escrow.amount);
        expect(Math.min(p.owner_income, p.platform_fee, p.refund)).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('refuses what the contract refuses: above the rent or deposit, negative, fractional or missing fen', () => {
    expect(settle(escrow, { consumption: 2001, deposit_deduction: 0 }, 500)).toEqual({ ok: false, errors: [{ path: 'consumption', message: 'must not exceed the rent paid (2000)' }] });
    expect(settle(escrow, { consumption: 0, deposit_deduction: 4001 }, 500)).toEqual({ ok: false, errors: [{ path: 'deposit_deduction', message: 'must not exceed the deposit (4000)' }] });
    for (const bad of [{ consumption: -1, deposit_deduction: 0 }, { consumption: 1.5, deposit_deduction: 0 }, { deposit_deduction: 0 }]) {
      const result = settle(escrow, bad, 500);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors.map((e) => e.path)).toEqual(['consumption']);
    }
  });
});

describe('<BreakdownForm>', () => {
  it('previews the split as figures are typed, and shows the broken invariant instead of a preview', () => {
    render(<Harness initial={{ consumption: 1000, deposit_deduction: 500 }} />);
    expect(screen.getByText('¥14.50')).toBeTruthy();
    expect(screen.getByText('¥0.50')).toBeTruthy();
    expect(screen.getByText('¥45.00')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('消费金额（分）'), { target: { value: '2500' } });
    fireEvent.blur(screen.getByLabelText('消费金额（分）'));
    expect(screen.getByText('must not exceed the rent paid (2000)')).toBeTruthy();
    expect(screen.queryByText('¥14.50')).toBeNull();

    fireEvent.change(screen.getByLabelText('消费金额（分）'), { target: { value: '2000' } });
    fireEvent.change(screen.getByLabelText('押金扣除（分）'), { target: { value: '4000' } });
    // owner 2000 + 4000 − 100, fee 100, nothing back
    expect(screen.getByText('¥59.00')).toBeTruthy();
    expect(screen.getByText('¥1.00')).toBeTruthy();
    expect(screen.getByText('¥0.00')).toBeTruthy();
  });
});
