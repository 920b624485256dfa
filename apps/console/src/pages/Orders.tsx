import { Link } from 'react-router';
import type { TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { ListPage } from '../components/ListPage';
import { Status } from '../components/Status';
import type { FilterField } from '../components/use-cursor-table';
import { when, yuan } from '../components/format';

type Order = Schema<'Order'>;
const STATUSES: Order['status'][] = [
  'pending_payment', 'pending_handoff', 'pending_receive', 'in_use', 'pending_checkout_confirm',
  'pending_correction_confirm', 'disputed', 'completed', 'cancelled', 'closed', 'abnormal',
];

const filters = (): FilterField[] => [
  { name: 'status', label: t('common.status'), options: STATUSES, labels: 'order', width: 200 },
  { name: 'renter_id', label: t('order.renter') },
  { name: 'owner_id', label: t('listing.owner') },
  { name: 'listing_id', label: t('listing.title') },
  { name: 'created_from', label: t('order.from'), day: 'start' },
  { name: 'created_to', label: t('order.to'), day: 'end' },
];

const columns = (): TableColumnsType<Order> => [
  { title: 'ID', dataIndex: 'id', render: (id: string) => <Link to={`/orders/${id}`}>{id.slice(-12)}</Link> },
  { title: t('listing.title'), dataIndex: 'listing_title' },
  { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Status kind="order" value={s} /> },
  { title: t('order.amount'), dataIndex: 'amount', render: yuan },
  { title: t('common.created'), dataIndex: 'created_at', render: when },
];

export default function Orders() {
  return <ListPage<Order> resource="orders" title={t('menu.orders')} filters={filters()} useColumns={columns} />;
}
