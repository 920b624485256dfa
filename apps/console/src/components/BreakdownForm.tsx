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
  // each figure in fen, at most what the escrow holds of it: that bound is its help until the rules refuse the figure
  const figures = [
    ['consumption', 'breakdown-consumption', t('breakdown.consumption'), escrow.rent],
    ['deposit_deduction', 'breakdown-deduction', t('breakdown.deduction'), escrow.deposit],
  ] as const;
  return (
    <>
      {figures.map(([field, id, label, bound]) => (
        <Form.Item key={field} label={label} htmlFor={id} validateStatus={errors[field] ? 'error' : undefined} help={errors[field] ?? `≤ ${bound}`}>
          <InputNumber id={id} aria-label={label} min={0} precision={0} style={{ width: 200 }} value={value[field]} onChange={(v) => onChange({ ...value, [field]: v ?? undefined })} />
        </Form.Item>
      ))}
      <Descriptions size="small" column={3} bordered aria-label="breakdown preview">
        <Descriptions.Item label={t('breakdown.ownerIncome')}>{result.ok ? yuan(result.settlement.owner_income) : '—'}</Descriptions.Item>
        <Descriptions.Item label={t('breakdown.fee')}>{result.ok ? yuan(result.settlement.platform_fee) : '—'}</Descriptions.Item>
        <Descriptions.Item label={t('breakdown.refund')}>{result.ok ? yuan(result.settlement.refund) : '—'}</Descriptions.Item>
      </Descriptions>
    </>
  );
}
