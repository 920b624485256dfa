import { Link, useSearchParams } from 'react-router';
import { Segmented, Tag, type TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { ListPage, type ListPageState } from '../components/ListPage';
import { Person, usePeople } from '../components/people';
import { Status } from '../components/Status';
import type { FilterField } from '../components/use-cursor-table';
import { when, yuan } from '../components/format';

type Listing = Schema<'Listing'>;
const STATUSES = ['draft', 'online', 'offline', 'abnormal', 'deleted'] as const;
const REVIEWS = ['none', 'pending', 'approved', 'rejected'] as const;

const allFields = (): FilterField[] => [
  { name: 'status', label: t('common.status'), options: STATUSES, labels: 'listing', width: 140 },
  { name: 'review_status', label: t('listing.review'), options: REVIEWS, labels: 'review', width: 140 },
  { name: 'owner_id', label: t('listing.owner') },
  // listings a rental handed over whose owner has not yet changed the password (ADR 0066)
  {
    name: 'awaiting_rotation',
    label: t('listing.rotation'),
    options: [
      { value: 'true', label: t('listing.awaitingRotation') },
      { value: 'false', label: t('listing.rotated') },
    ],
    width: 160,
  },
];

/** Each listing's owner by nickname and phone. */
function useColumns({ list }: ListPageState<Listing>): TableColumnsType<Listing> {
  const people = usePeople(list.items.map((l) => l.owner_id));
  return [
    { title: t('listing.title'), dataIndex: 'title', render: (title: string, l) => <Link to={`/listings/${l.id}`}>{title}</Link> },
    { title: t('listing.game'), dataIndex: 'game' },
    { title: t('listing.owner'), dataIndex: 'owner_id', render: (id: string) => <Person id={id} people={people} /> },
    { title: t('listing.price'), dataIndex: 'hourly_price', render: yuan },
    { title: t('listing.deposit'), dataIndex: 'deposit', render: yuan },
    { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Status kind="listing" value={s} /> },
    { title: t('listing.review'), dataIndex: 'review_status', render: (s: string) => <Status kind="review" value={s} color={s === 'pending' ? 'orange' : undefined} /> },
    { title: t('listing.rotation'), dataIndex: 'awaiting_rotation', render: (waiting: boolean) => (waiting ? <Tag color="orange">{t('listing.awaitingRotation')}</Tag> : null) },
    { title: t('common.created'), dataIndex: 'created_at', render: when },
  ];
}

/**
 * The review queue first (listings awaiting review, oldest first: the one waiting longest is on
 * top), every listing with its filters one click away (`?view=all`).
 */
export default function Listings() {
  const [params, setParams] = useSearchParams();
  const all = params.get('view') === 'all';
  const view = (
    <Segmented
      style={{ marginBottom: 16 }}
      value={all ? 'all' : 'queue'}
      onChange={(v) => setParams(v === 'all' ? { view: 'all' } : {})}
      options={[
        { value: 'queue', label: t('listing.queue') },
        { value: 'all', label: t('listing.all') },
      ]}
    />
  );
  return <ListPage<Listing> resource={all ? 'listings' : 'listings-pending'} title={t('menu.listings')} extra={<div>{view}</div>} filters={all ? allFields() : []} useColumns={useColumns} />;
}
