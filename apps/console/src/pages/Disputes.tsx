import { Link } from 'react-router';
import { Image, Space, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { useMany } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { useAllowed } from '../use-allowed';
import { ListPage, type ListPageState } from '../components/ListPage';
import { ArbitrateButton } from '../components/ArbitrateButton';
import { Status } from '../components/Status';
import type { FilterField } from '../components/use-cursor-table';
import { when } from '../components/format';

type Dispute = Schema<'Dispute'>;
type Order = Schema<'AdminOrderDetail'>;

const filters = (): FilterField[] => [
  { name: 'status', label: t('common.status'), options: ['open', 'resolved'], labels: 'dispute', fallback: 'open', width: 120 },
  { name: 'type', label: t('dispute.type'), options: ['handoff', 'usage', 'checkout'], labels: 'disputeType', width: 140 },
];

/** Each dispute's order (arbitration needs its rent and deposit) and whether the admin may arbitrate. */
function useColumns({ list }: ListPageState<Dispute>): TableColumnsType<Dispute> {
  // the page is at most 20 disputes
  const { result: orders } = useMany<Order>({ resource: 'orders', ids: list.items.map((d) => d.order_id), queryOptions: { enabled: list.items.length > 0 } });
  const orderOf = (id: string) => orders.data.find((o) => o.id === id);
  const arbitrate = useAllowed('disputes.arbitrate');
  return [
    { title: t('menu.orders'), dataIndex: 'order_id', render: (id: string) => <Link to={`/orders/${id}`}>{orderOf(id)?.listing_title ?? id}</Link> },
    { title: t('dispute.type'), dataIndex: 'type', render: (s: string) => <Status kind="disputeType" value={s} /> },
    { title: t('dispute.reason'), dataIndex: 'reason' },
    {
      title: t('dispute.evidence'),
      dataIndex: 'evidence_urls',
      render: (urls: string[]) => (
        <Space>
          {urls.map((url, i) => (
            <Image key={url} src={url} width={64} alt={`${t('dispute.evidence')} ${i + 1}`} />
          ))}
        </Space>
      ),
    },
    { title: t('dispute.age'), dataIndex: 'created_at', render: (at: string) => <span title={when(at)}>{dayjs().diff(dayjs(at), 'hour')} h</span> },
    {
      title: t('common.status'),
      dataIndex: 'status',
      render: (s: string, d) => (d.result ? <Status kind="ruling" value={d.result} /> : <Status kind="dispute" value={s} color={s === 'open' ? 'orange' : undefined} />),
    },
    {
      title: t('dispute.arbitrate'),
      key: 'actions',
      render: (_, d) => {
        const order = orderOf(d.order_id);
        return d.status === 'open' && order && arbitrate ? <ArbitrateButton dispute={d} escrow={order} onDone={list.reload} /> : null;
      },
    },
  ];
}

/** The dispute queue: each open dispute with its evidence inline and arbitration in place. */
export default function Disputes() {
  return <ListPage<Dispute> resource="disputes" title={t('menu.disputes')} filters={filters()} useColumns={useColumns} />;
}
