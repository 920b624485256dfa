import type { TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { t } from '../../i18n';
import { ListPage, type ListPageState } from '../../components/ListPage';
import { Status } from '../../components/Status';
import type { FilterField } from '../../components/use-cursor-table';
import { yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';
import { useReview } from './use-review';

type Refund = Schema<'Refund'>;
const STATUSES: Refund['status'][] = ['requested', 'approved', 'processing', 'refunded', 'failed', 'rejected'];
const KINDS: Refund['kind'][] = ['user_request', 'late_success', 'amount_mismatch'];
const COLORS: Partial<Record<Refund['status'], string>> = { requested: 'orange', refunded: 'green', failed: 'red', rejected: 'red' };

const filters = (): FilterField[] => [
  { name: 'status', label: t('common.status'), options: STATUSES, labels: 'refund', width: 160 },
  { name: 'kind', label: t('money.refundKind'), options: KINDS, labels: 'refundKind', width: 180 },
  { name: 'user_id', label: t('money.user') },
  { name: 'payment_id', label: t('money.payment') },
];

function useColumns({ list }: ListPageState<Refund>): TableColumnsType<Refund> {
  const { person, review } = useReview(list, 'refunds');
  return [
    person,
    { title: t('money.payment'), dataIndex: 'payment_id' },
    { title: t('order.amount'), dataIndex: 'amount', render: yuan },
    { title: t('money.channel'), dataIndex: 'provider', render: (p: string) => <Status kind="channel" value={p} /> },
    { title: t('money.refundKind'), dataIndex: 'kind', render: (k: string) => <Status kind="refundKind" value={k} /> },
    { title: t('common.status'), dataIndex: 'status', render: (s: Refund['status']) => <Status kind="refund" value={s} color={COLORS[s]} /> },
    ...review({ pending: (r) => r.status === 'requested', approve: t('money.approveRefund'), reject: t('money.rejectRefund') }),
  ];
}

/** Refunds to review: approving holds the amount and sends the refund, rejecting (with a reason) changes no balance. */
export default function Refunds() {
  return <ListPage<Refund> resource="refunds" title={t('menu.money')} extra={<MoneyTabs />} filters={filters()} useColumns={useColumns} />;
}
