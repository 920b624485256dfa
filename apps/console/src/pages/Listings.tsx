import { Link } from 'react-router';
import { Tag } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { useCursorList } from '../components/use-cursor-list';
import { when, yuan } from '../components/format';

type Listing = Schema<'Listing'>;
const STATUSES = ['draft', 'online', 'offline', 'abnormal', 'deleted'] as const;
const REVIEWS = ['none', 'pending', 'approved', 'rejected'] as const;

export default function Listings() {
  const list = useCursorList<Listing>(
    [
      { name: 'pending', label: t('listing.pendingOnly'), options: [{ value: '1', label: t('listing.pendingOnly') }], width: 120 },
      { name: 'status', label: t('common.status'), options: STATUSES, width: 140 },
      { name: 'review_status', label: t('listing.review'), options: REVIEWS, width: 140 },
      { name: 'owner_id', label: t('listing.owner') },
    ],
    (q) =>
      q.pending
        ? ok(market.api.GET('/api/admin/listings/pending', { params: { query: { cursor: q.cursor } } }))
        : ok(
            market.api.GET('/api/admin/listings', {
              params: {
                query: {
                  cursor: q.cursor,
                  status: q.status as Listing['status'] | undefined,
                  review_status: q.review_status as Listing['review_status'] | undefined,
                  owner_id: q.owner_id,
                },
              },
            }),
          ),
  );
  return (
    <ListView<Listing>
      title={t('menu.listings')}
      list={list}
      rowKey="id"
        columns={[
          { title: t('listing.title'), dataIndex: 'title', render: (title: string, l) => <Link to={`/listings/${l.id}`}>{title}</Link> },
          { title: t('listing.game'), dataIndex: 'game' },
          { title: t('listing.price'), dataIndex: 'hourly_price', render: yuan },
          { title: t('listing.deposit'), dataIndex: 'deposit', render: yuan },
          { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Tag>{s}</Tag> },
          { title: t('listing.review'), dataIndex: 'review_status', render: (s: string) => <Tag color={s === 'pending' ? 'orange' : undefined}>{s}</Tag> },
          { title: t('common.created'), dataIndex: 'created_at', render: when },
        ]}
    />
  );
}
