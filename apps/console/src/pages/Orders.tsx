import { Link } from 'react-router';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { Status } from '../components/Status';
import { useCursorTable } from '../components/use-cursor-table';
import { when, yuan } from '../components/format';

type Order = Schema<'Order'>;
const STATUSES: Order['status'][] = [
  'pending_payment', 'pending_handoff', 'pending_receive', 'in_use', 'pending_checkout_confirm',
  'pending_correction_confirm', 'disputed', 'completed', 'cancelled', 'closed', 'abnormal',
];

export default function Orders() {
  const list = useCursorTable<Order>('orders', [
    { name: 'status', label: t('common.status'), options: STATUSES, labels: 'order', width: 200 },
    { name: 'renter_id', label: t('order.renter') },
    { name: 'owner_id', label: t('listing.owner') },
    { name: 'listing_id', label: t('listing.title') },
    { name: 'created_from', label: t('order.from'), day: 'start' },
    { name: 'created_to', label: t('order.to'), day: 'end' },
  ]);
  return (
    <ListView<Order>
      title={t('menu.orders')}
      list={list}
      rowKey="id"
      columns={[
        { title: 'ID', dataIndex: 'id', render: (id: string) => <Link to={`/orders/${id}`}>{id.slice(-12)}</Link> },
        { title: t('listing.title'), dataIndex: 'listing_title' },
        { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Status kind="order" value={s} /> },
        { title: t('order.amount'), dataIndex: 'amount', render: yuan },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
      ]}
    />
  );
}
