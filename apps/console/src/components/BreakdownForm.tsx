import { Descriptions, Form, InputNumber } from 'antd';
import { t } from '../i18n';
import { settle, type Escrow, type Proposal } from '@market/contracts';
import { yuan } from './format';

/**
 * The two figures an admin decides (consumption, deposit deduction), checked against the
 * settlement's invariants as they are typed, with what each party would get.
 */
export function BreakdownForm({
  escrow,
  commissionBps,
  value,
  onChange,
}: {
  escrow: Escrow;
  commissionBps: number;
  value: Partial<Proposal>;
  onChange: (next: Partial<Proposal>) => void;
}) {
  // the server's own split (the contracts' rule), so the preview is what arbitration will book
  const result = settle(escrow, value, commissionBps);
  const errors: Partial<Record<string, string>> = {};
  if (!result.ok) for (const e of result.errors) errors[e.path] ??= e.message;
  return (
    <>
      <Form.Item
        label={t('breakdown.consumption')}
        htmlFor="breakdown-consumption"
        validateStatus={errors.consumption ? 'error' : undefined}
        help={errors.consumption ?? `≤ ${escrow.rent}`}
      >
        <InputNumber
          id="breakdown-consumption"
          aria-label={t('breakdown.consumption')}
          min={0}
          precision={0}
          style={{ width: 200 }}
          value={value.consumption}
          onChange={(v) => onChange({ ...value, consumption: v ?? undefined })}
        />
      </Form.Item>
      <Form.Item
        label={t('breakdown.deduction')}
        htmlFor="breakdown-deduction"
        validateStatus={errors.deposit_deduction ? 'error' : undefined}
        help={errors.deposit_deduction ?? `≤ ${escrow.deposit}`}
      >
        <InputNumber
          id="breakdown-deduction"
          aria-label={t('breakdown.deduction')}
          min={0}
          precision={0}
          style={{ width: 200 }}
          value={value.deposit_deduction}
          onChange={(v) => onChange({ ...value, deposit_deduction: v ?? undefined })}
        />
      </Form.Item>
      <Descriptions size="small" column={3} bordered aria-label="breakdown preview">
        <Descriptions.Item label={t('breakdown.ownerIncome')}>{result.ok ? yuan(result.settlement.owner_income) : '—'}</Descriptions.Item>
        <Descriptions.Item label={t('breakdown.fee')}>{result.ok ? yuan(result.settlement.platform_fee) : '—'}</Descriptions.Item>
        <Descriptions.Item label={t('breakdown.refund')}>{result.ok ? yuan(result.settlement.refund) : '—'}</Descriptions.Item>
      </Descriptions>
    </>
  );
}
