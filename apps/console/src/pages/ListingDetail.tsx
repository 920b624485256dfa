import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Button, Card, Descriptions, Image, Skeleton, Space, Tag, Typography } from 'antd';
import { useShow } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { useAllowed } from '../use-allowed';
import { ProblemAlert } from '../components/ProblemAlert';
import { ReasonButton } from '../components/ReasonDialog';
import { Person, usePeople } from '../components/people';
import { Status } from '../components/Status';
import { useMove } from '../components/use-move';
import { when, yuan } from '../components/format';

type Listing = Schema<'Listing'>;

/** A rating summary as an operator reads it: the average and how many ratings it is of. */
const rating = (r: Schema<'RatingSummary'>) => (r.average === null ? '—' : t('listing.ratingOf', { average: r.average.toFixed(2), count: r.count }));

/** One listing as a reviewer sees it: what renters will see, never its stored credentials (the API does not carry them). */
export default function ListingDetail() {
  const { id = '' } = useParams();
  const { result: l, query } = useShow<Listing>({ resource: 'listings', id, errorNotification: false });
  const [actionError, setActionError] = useState<unknown>(null);
  const move = useMove();
  const review = useAllowed('listings.review');
  const people = usePeople([l?.owner_id]);
  if (query.error) return <ProblemAlert error={query.error} onRetry={() => void query.refetch()} />;
  if (!l) return <Skeleton active aria-label={t('common.loading')} />;
  const done = () => {
    setActionError(null);
    void query.refetch();
  };
  const approve = () => move('/api/admin/listings/{id}/approve', { id }).then(done, setActionError);
  return (
    <>
      <Link to="/listings">{t('common.back')}</Link>
      <Typography.Title level={3}>{l.title}</Typography.Title>
      {actionError ? <ProblemAlert error={actionError} /> : null}
      {l.review_status === 'pending' && review ? (
        <Space style={{ marginBottom: 16 }}>
          <Button type="primary" onClick={approve}>
            {t('listing.approve')}
          </Button>
          <ReasonButton danger label={t('listing.reject')} reasonLabel={t('listing.rejectReason')} onSubmit={(reason) => move('/api/admin/listings/{id}/reject', { id }, { reason }).then(done)} />
        </Space>
      ) : null}
      <Descriptions bordered column={2} aria-label={l.title}>
        <Descriptions.Item label={t('listing.game')}>{l.game}</Descriptions.Item>
        <Descriptions.Item label={t('listing.owner')}>
          <Person id={l.owner_id} people={people} />
        </Descriptions.Item>
        <Descriptions.Item label={t('listing.price')}>{yuan(l.hourly_price)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.deposit')}>{yuan(l.deposit)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.hours')}>
          {l.min_hours} – {l.max_hours ?? '∞'}
        </Descriptions.Item>
        <Descriptions.Item label={t('common.status')}>
          <Status kind="listing" value={l.status} /> <Status kind="review" value={l.review_status} /> {l.reject_reason}
        </Descriptions.Item>
        <Descriptions.Item label={t('listing.rating')}>{rating(l.rating)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.ownerRating')}>{rating(l.owner_rating)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.rotation')} span={2}>
          {l.require_rotation ? t('listing.rotationRequired') : '—'} {l.awaiting_rotation ? <Tag color="orange">{t('listing.awaitingRotation')}</Tag> : null}
          {l.rotation_confirmed_at ? ` · ${when(l.rotation_confirmed_at)}` : null}
        </Descriptions.Item>
        <Descriptions.Item label={t('listing.description')} span={2}>
          {l.description ?? '—'}
        </Descriptions.Item>
        <Descriptions.Item label={t('common.created')}>{when(l.created_at)}</Descriptions.Item>
      </Descriptions>
      <Card title={t('listing.images')} style={{ marginTop: 16 }}>
        <Image.PreviewGroup>
          {l.screenshot_urls.map((url, i) => (
            <Image key={url} src={url} width={160} alt={`${t('listing.images')} ${i + 1}`} />
          ))}
        </Image.PreviewGroup>
      </Card>
    </>
  );
}
