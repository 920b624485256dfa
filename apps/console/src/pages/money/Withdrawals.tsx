import { Form, Input, Select, type TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { label, t } from '../../i18n';
import { FormDialog } from '../../components/FormDialog';
import { ListPage, type ListPageState } from '../../components/ListPage';
import { Status } from '../../components/Status';
import type { FilterField } from '../../components/use-cursor-table';
import { useMove } from '../../components/use-move';
import { yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';
import { useReview } from './use-review';

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

const filters = (): FilterField[] => [
  { name: 'status', label: t('common.status'), options: STATUSES, labels: 'withdrawal', width: 160 },
  { name: 'channel', label: t('money.channel'), options: ['alipay', 'wechatpay'], labels: 'channel', width: 140 },
  { name: 'user_id', label: t('money.user') },
];

function useColumns({ list }: ListPageState<Withdrawal>): TableColumnsType<Withdrawal> {
  const { person, review } = useReview(list, 'withdrawals');
  return [
    person,
    { title: t('order.amount'), dataIndex: 'amount', render: yuan },
    { title: t('money.channel'), dataIndex: 'channel', render: (c: string) => <Status kind="channel" value={c} /> },
    { title: t('money.payee'), key: 'payee', render: (_, w) => `${w.payee_name_masked} · ${w.payee_account_masked}` },
    { title: t('common.status'), dataIndex: 'status', render: (s: Withdrawal['status']) => <Status kind="withdrawal" value={s} color={COLORS[s]} /> },
    ...review({
      pending: (w) => w.status === 'pending_review',
      approve: t('money.approve'),
      reject: t('money.reject'),
      // a transfer whose outcome stayed unknown is resolved by hand
      otherwise: (w) => (w.status === 'processing' ? <ResolveButton withdrawal={w} onDone={list.reload} /> : null),
    }),
  ];
}

/** Withdrawals to review: approving sends the transfer, rejecting (with a reason) gives the hold back; a transfer still `processing` may be resolved by hand. */
export default function Withdrawals() {
  return <ListPage<Withdrawal> resource="withdrawals" title={t('menu.money')} extra={<MoneyTabs />} filters={filters()} useColumns={useColumns} />;
}
