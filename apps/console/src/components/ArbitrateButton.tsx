import { useState } from 'react';
import { Button, Checkbox, Form, Input, Modal, Radio } from 'antd';
import { useList } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { settle, type Escrow, type Proposal } from '@market/contracts';
import { label, t } from '../i18n';
import { useMove } from './use-move';
import { BreakdownForm } from './BreakdownForm';
import { ProblemAlert } from './ProblemAlert';
import { useSubmit } from './use-submit';

type Result = 'complete' | 'close' | 'mark_abnormal';

/** Arbitration of an open dispute; complete and close may carry a breakdown, previewed before it is sent. */
export function ArbitrateButton({ dispute, escrow, onDone }: { dispute: Schema<'Dispute'>; escrow: Escrow; onDone: (d: Schema<'Dispute'>) => void }) {
  const [open, setOpen] = useState(false);
  // the platform commission the server applies at settlement now (system config platform.commission_rate_bps)
  const configs = useList<Schema<'SystemConfig'>>({ resource: 'configs', queryOptions: { enabled: open }, errorNotification: false });
  const rate = configs.result.data.find((c) => c.key === 'platform.commission_rate_bps')?.value;
  const bps = configs.query.isSuccess ? (typeof rate === 'number' ? rate : 0) : null;
  const move = useMove();
  const [result, setResult] = useState<Result>('complete');
  const [note, setNote] = useState('');
  const [withBreakdown, setWithBreakdown] = useState(false);
  const [breakdown, setBreakdown] = useState<Partial<Proposal>>({ consumption: escrow.rent, deposit_deduction: 0 });
  const { busy, error: refusal, run } = useSubmit(() => setOpen(false));
  const error = refusal ?? configs.query.error;
  const useBreakdown = withBreakdown && result !== 'mark_abnormal';
  const valid = note.trim().length > 0 && (!useBreakdown || (bps !== null && settle(escrow, breakdown, bps).ok));

  const show = () => setOpen(true);
  const submit = () =>
    run(async () => {
      const body = { result, note, ...(useBreakdown ? { breakdown: breakdown as Proposal } : {}) };
      onDone(await move<Schema<'Dispute'>>('/api/admin/disputes/{id}/arbitrate', { id: dispute.id }, body));
    });
  return (
    <>
      <Button type="primary" onClick={show}>
        {t('dispute.arbitrate')}
      </Button>
      <Modal title={t('dispute.arbitrate')} open={open} onCancel={() => setOpen(false)} onOk={submit} okText={t('common.confirm')} cancelText={t('common.cancel')} okButtonProps={{ disabled: !valid }} confirmLoading={busy} width={640}>
        {error ? <ProblemAlert error={error} /> : null}
        <Form layout="vertical">
          <Form.Item label={t('dispute.result')}>
            <Radio.Group aria-label={t('dispute.result')} value={result} onChange={(e) => setResult(e.target.value as Result)}>
              {(['complete', 'close', 'mark_abnormal'] as const).map((r) => (
                <Radio key={r} value={r}>
                  {label('ruling', r)}
                </Radio>
              ))}
            </Radio.Group>
          </Form.Item>
          <Form.Item label={t('dispute.note')} htmlFor="arbitrate-note" required>
            <Input.TextArea id="arbitrate-note" rows={2} value={note} onChange={(e) => setNote(e.target.value)} maxLength={1000} />
          </Form.Item>
          {result !== 'mark_abnormal' ? (
            <Form.Item>
              <Checkbox checked={withBreakdown} onChange={(e) => setWithBreakdown(e.target.checked)}>
                {t('breakdown.use')}
              </Checkbox>
            </Form.Item>
          ) : null}
          {useBreakdown && bps !== null ? <BreakdownForm escrow={escrow} commissionBps={bps} value={breakdown} onChange={setBreakdown} /> : null}
        </Form>
      </Modal>
    </>
  );
}
