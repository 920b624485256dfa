import { Link } from 'react-router';
import { Image, Space, Tag } from 'antd';
import dayjs from 'dayjs';
import { ok, type Schema } from '@market/sdk';
import type { Escrow } from '@market/contracts';
import { market } from '../session';
import { can } from '../access';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { ArbitrateButton } from '../components/ArbitrateButton';
import { useCursorList } from '../components/use-cursor-list';
import { when } from '../components/format';

type Dispute = Schema<'Dispute'>;
/** The dispute with what arbitration needs of its order. */
type Row = Dispute & { order?: Escrow & { listing_title: string } };

/** The dispute queue: each open dispute with its evidence inline and arbitration in place. */
export default function Disputes() {
  const list = useCursorList<Row>(
    [
      { name: 'status', label: t('common.status'), options: ['open', 'resolved'], fallback: 'open', width: 120 },
      { name: 'type', label: t('dispute.type'), options: ['handoff', 'usage', 'checkout'], width: 140 },
    ],
    async (q) => {
    const page = await ok(
      market.api.GET('/api/admin/disputes', {
        params: { query: { cursor: q.cursor, status: q.status as Dispute['status'], type: q.type as Dispute['type'] | undefined, order_id: q.order_id } },
      }),
    );
    // arbitration needs the order's rent and deposit; the page is at most 20 disputes
    const orders = await Promise.all(page.items.map((d) => ok(market.api.GET('/api/admin/orders/{id}', { params: { path: { id: d.order_id } } }))));
    return { ...page, items: page.items.map((d, i) => ({ ...d, order: { rent: orders[i]!.rent, deposit: orders[i]!.deposit, amount: orders[i]!.amount, listing_title: orders[i]!.listing_title } })) };
    },
  );
  return (
    <>
      <ListView<Row>
        title={t('menu.disputes')}
        list={list}
        rowKey="id"
        columns={[
          { title: t('menu.orders'), dataIndex: 'order_id', render: (id: string, d) => <Link to={`/orders/${id}`}>{d.order?.listing_title ?? id}</Link> },
          { title: t('dispute.type'), dataIndex: 'type', render: (s: string) => <Tag>{s}</Tag> },
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
          { title: t('common.status'), dataIndex: 'status', render: (s: string, d) => <Tag color={s === 'open' ? 'orange' : undefined}>{d.result ?? s}</Tag> },
          {
            title: t('dispute.arbitrate'),
            key: 'actions',
            render: (_, d) => (d.status === 'open' && d.order && can('disputes.arbitrate') ? <ArbitrateButton dispute={d} escrow={d.order} onDone={list.reload} /> : null),
          },
        ]}
      />
    </>
  );
}
