import { Button, Space } from 'antd';
import type { Schema } from '@market/sdk';
import { t } from '../../i18n';
import { useAllowed } from '../../use-allowed';
import { ListView } from '../../components/ListView';
import { ReasonButton } from '../../components/ReasonDialog';
import { Person, usePeople } from '../../components/people';
import { Status } from '../../components/Status';
import { useCursorTable } from '../../components/use-cursor-table';
import { useMove } from '../../components/use-move';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Refund = Schema<'Refund'>;
const STATUSES: Refund['status'][] = ['requested', 'approved', 'processing', 'refunded', 'failed', 'rejected'];
const KINDS: Refund['kind'][] = ['user_request', 'late_success', 'amount_mismatch'];
const COLORS: Partial<Record<Refund['status'], string>> = { requested: 'orange', refunded: 'green', failed: 'red', rejected: 'red' };

/** Refunds to review: approving holds the amount and sends the refund, rejecting (with a reason) changes no balance. */
export default function Refunds() {
  const list = useCursorTable<Refund>('refunds', [
    { name: 'status', label: t('common.status'), options: STATUSES, labels: 'refund', width: 160 },
    { name: 'kind', label: t('money.refundKind'), options: KINDS, labels: 'refundKind', width: 180 },
    { name: 'user_id', label: t('money.user') },
    { name: 'payment_id', label: t('money.payment') },
  ]);
  const move = useMove();
  const people = usePeople(list.items.map((r) => r.user_id));
  const manage = useAllowed('refunds.manage');
  const approve = (r: Refund) => move('/api/admin/refunds/{id}/approve', { id: r.id }, {}, { notifyRefusal: true }).then(list.reload, list.reload);
  const reject = (r: Refund) => (reason: string) => move('/api/admin/refunds/{id}/reject', { id: r.id }, { reason }).then(list.reload);
  return (
    <ListView<Refund>
      title={t('menu.money')}
      extra={<MoneyTabs />}
      list={list}
      rowKey="id"
      columns={[
        { title: t('money.person'), dataIndex: 'user_id', render: (id: string) => <Person id={id} people={people} /> },
        { title: t('money.payment'), dataIndex: 'payment_id' },
        { title: t('order.amount'), dataIndex: 'amount', render: yuan },
        { title: t('money.channel'), dataIndex: 'provider', render: (p: string) => <Status kind="channel" value={p} /> },
        { title: t('money.refundKind'), dataIndex: 'kind', render: (k: string) => <Status kind="refundKind" value={k} /> },
        { title: t('common.status'), dataIndex: 'status', render: (s: Refund['status']) => <Status kind="refund" value={s} color={COLORS[s]} /> },
        { title: t('common.reason'), dataIndex: 'reason' },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        {
          title: t('money.review'),
          key: 'actions',
          render: (_, r) =>
            r.status === 'requested' && manage ? (
              <Space>
                <Button type="primary" onClick={() => approve(r)}>
                  {t('money.approveRefund')}
                </Button>
                <ReasonButton danger label={t('money.rejectRefund')} reasonLabel={t('money.rejectReason')} onSubmit={reject(r)} />
              </Space>
            ) : null,
        },
      ]}
    />
  );
}
