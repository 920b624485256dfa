import { Button, Form, Input, Select, Space } from 'antd';
import type { Schema } from '@market/sdk';
import { label, t } from '../../i18n';
import { useAllowed } from '../../use-allowed';
import { FormDialog } from '../../components/FormDialog';
import { ListView } from '../../components/ListView';
import { ReasonButton } from '../../components/ReasonDialog';
import { Person, usePeople } from '../../components/people';
import { Status } from '../../components/Status';
import { useCursorTable } from '../../components/use-cursor-table';
import { useMove } from '../../components/use-move';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Withdrawal = Schema<'Withdrawal'>;
const STATUSES: Withdrawal['status'][] = ['pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled', 'reversed'];
const COLORS: Partial<Record<Withdrawal['status'], string>> = { pending_review: 'orange', paid: 'green', failed: 'red', rejected: 'red', reversed: 'purple' };
type Resolution = { outcome: 'paid' | 'failed'; evidence: { provider_transfer_id: string; bill_line: string }; reason?: string };

/**
 * Finance settles by hand a transfer whose outcome stayed unknown, on the provider's evidence (its
 * transfer id and the bill line). The server asks the provider once more before a `failed` and
 * refuses it when the provider says paid or the payee can still confirm: the dialog shows that refusal.
 */
function ResolveButton({ withdrawal, onDone }: { withdrawal: Withdrawal; onDone: () => void }) {
  const move = useMove();
  const resolve = (values: Resolution) => move('/api/admin/withdrawals/{id}/resolve', { id: withdrawal.id }, { ...values, reason: values.reason?.trim() || undefined }).then(onDone);
  const required = [{ required: true, whitespace: true, max: 500 }];
  return (
    <FormDialog<Resolution> label={t('money.resolve')} title={t('money.resolveTitle')} onSubmit={resolve}>
      <Form.Item label={t('money.outcome')} name="outcome" rules={[{ required: true }]}>
        <Select aria-label={t('money.outcome')} options={(['paid', 'failed'] as const).map((o) => ({ value: o, label: label('withdrawalOutcome', o) }))} />
      </Form.Item>
      <Form.Item label={t('money.providerTransferId')} name={['evidence', 'provider_transfer_id']} rules={required}>
        <Input />
      </Form.Item>
      <Form.Item label={t('money.billLine')} name={['evidence', 'bill_line']} rules={required}>
        <Input.TextArea rows={3} />
      </Form.Item>
      <Form.Item label={t('common.reason')} name="reason" rules={[{ max: 500 }]}>
        <Input.TextArea rows={2} />
      </Form.Item>
    </FormDialog>
  );
}

/** Withdrawals to review: approving sends the transfer, rejecting (with a reason) gives the hold back; a transfer still `processing` may be resolved by hand. */
export default function Withdrawals() {
  const list = useCursorTable<Withdrawal>('withdrawals', [
    { name: 'status', label: t('common.status'), options: STATUSES, labels: 'withdrawal', width: 160 },
    { name: 'channel', label: t('money.channel'), options: ['alipay', 'wechatpay'], labels: 'channel', width: 140 },
    { name: 'user_id', label: t('money.user') },
  ]);
  const move = useMove();
  const people = usePeople(list.items.map((w) => w.user_id));
  const manage = useAllowed('withdrawals.manage');
  const approve = (w: Withdrawal) => move('/api/admin/withdrawals/{id}/approve', { id: w.id }, {}, { notifyRefusal: true }).then(list.reload, list.reload);
  const reject = (w: Withdrawal) => (reason: string) => move('/api/admin/withdrawals/{id}/reject', { id: w.id }, { reason }).then(list.reload);
  return (
    <ListView<Withdrawal>
      title={t('menu.money')}
      extra={<MoneyTabs />}
      list={list}
      rowKey="id"
      columns={[
        { title: t('money.person'), dataIndex: 'user_id', render: (id: string) => <Person id={id} people={people} /> },
        { title: t('order.amount'), dataIndex: 'amount', render: yuan },
        { title: t('money.channel'), dataIndex: 'channel', render: (c: string) => <Status kind="channel" value={c} /> },
        { title: t('money.payee'), key: 'payee', render: (_, w) => `${w.payee_name_masked} · ${w.payee_account_masked}` },
        { title: t('common.status'), dataIndex: 'status', render: (s: Withdrawal['status']) => <Status kind="withdrawal" value={s} color={COLORS[s]} /> },
        { title: t('common.reason'), dataIndex: 'reason' },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        {
          title: t('money.review'),
          key: 'actions',
          render: (_, w) =>
            w.status === 'pending_review' && manage ? (
              <Space>
                <Button type="primary" onClick={() => approve(w)}>
                  {t('money.approve')}
                </Button>
                <ReasonButton danger label={t('money.reject')} reasonLabel={t('money.rejectReason')} onSubmit={reject(w)} />
              </Space>
            ) : w.status === 'processing' && manage ? (
              <ResolveButton withdrawal={w} onDone={list.reload} />
            ) : null,
        },
      ]}
    />
  );
}
