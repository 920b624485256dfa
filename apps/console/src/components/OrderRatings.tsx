import { Space, Table, Tag } from 'antd';
import { useCustom } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { useAllowed } from '../use-allowed';
import { ProblemAlert } from './ProblemAlert';
import { ReasonButton } from './ReasonDialog';
import { Person, usePeople } from './people';
import { Status } from './Status';
import { useMove } from './use-move';
import { when } from './format';

type Rating = Schema<'Rating'>;

/**
 * The two ratings of a completed order as the back office sees them: published or not, hidden
 * comments included. An admin with `ratings.moderate` hides an abusive comment with a reason
 * (audited by the server); the stars still count (ADR 0066).
 */
export function OrderRatings({ orderId }: { orderId: string }) {
  const mayHide = useAllowed('orders.hideRatingComment');
  const move = useMove();
  const ratings = useCustom<{ items: Rating[] }>({
    url: '/api/admin/orders/{id}/ratings',
    method: 'get',
    meta: { path: { id: orderId } },
    errorNotification: false,
  });
  const items = ratings.query.data?.data.items;
  const people = usePeople(items?.map((r) => r.rater_id) ?? []);
  if (ratings.query.error) return <ProblemAlert error={ratings.query.error} onRetry={() => void ratings.query.refetch()} />;
  const hide = (r: Rating, reason: string) =>
    move('/api/admin/orders/{id}/ratings/{ratingId}/hide-comment', { id: orderId, ratingId: r.id }, { reason }).then(() => ratings.query.refetch());
  return (
    <Table<Rating>
      aria-label={t('rating.title')}
      rowKey="id"
      pagination={false}
      loading={!items}
      dataSource={items ?? []}
      locale={{ emptyText: t('rating.none') }}
      columns={[
        { title: t('rating.direction'), dataIndex: 'direction', render: (d: string) => <Status kind="ratingDirection" value={d} /> },
        { title: t('rating.rater'), dataIndex: 'rater_id', render: (id: string) => <Person id={id} people={people} /> },
        {
          title: t('rating.stars'),
          dataIndex: 'stars',
          render: (stars: number) => <span aria-label={t('rating.starsOf', { count: stars })}>{'★'.repeat(stars) + '☆'.repeat(5 - stars)}</span>,
        },
        {
          title: t('rating.tags'),
          dataIndex: 'tags',
          render: (tags: string[]) => (
            <Space size={4} wrap>
              {tags.map((tag) => (
                <Status key={tag} kind="ratingTag" value={tag} />
              ))}
            </Space>
          ),
        },
        {
          title: t('rating.comment'),
          key: 'comment',
          render: (_, r) => (
            <Space>
              {r.comment ?? '—'}
              {r.comment_hidden ? <Tag color="red">{t('rating.hidden')}</Tag> : null}
            </Space>
          ),
        },
        {
          title: t('rating.published'),
          key: 'published',
          render: (_, r) => (r.published ? when(r.published_at) : <Tag>{t('rating.waiting')}</Tag>),
        },
        {
          title: t('rating.actions'),
          key: 'actions',
          render: (_, r) =>
            mayHide && r.comment !== null && !r.comment_hidden ? (
              <ReasonButton danger label={t('rating.hide')} reasonLabel={t('common.reason')} onSubmit={(reason) => hide(r, reason)} />
            ) : null,
        },
      ]}
    />
  );
}
