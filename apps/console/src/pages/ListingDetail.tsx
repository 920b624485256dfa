import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { App, Button, Card, Descriptions, Image, Skeleton, Space, Tag, Typography } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { can } from '../access';
import { t } from '../i18n';
import { ProblemAlert } from '../components/ProblemAlert';
import { ReasonButton } from '../components/ReasonDialog';
import { when, yuan } from '../components/format';

/** One listing as a reviewer sees it: what renters will see, never its stored credentials (the API does not carry them). */
export default function ListingDetail() {
  const { id = '' } = useParams();
  const { message } = App.useApp();
  const [state, setState] = useState<{ listing?: Schema<'Listing'>; error?: unknown }>({});
  const [actionError, setActionError] = useState<unknown>(null);
  const load = () => {
    ok(market.api.GET('/api/admin/listings/{id}', { params: { path: { id } } })).then((listing) => setState({ listing }), (error: unknown) => setState({ error }));
  };
  useEffect(load, [id]);
  if (state.error) return <ProblemAlert error={state.error} onRetry={load} />;
  const l = state.listing;
  if (!l) return <Skeleton active aria-label={t('common.loading')} />;
  const reviewable = l.review_status === 'pending' && can('listings.review');
  const done = (listing: Schema<'Listing'>) => {
    setState({ listing });
    setActionError(null);
    void message.success(t('common.done'));
  };
  const approve = () => ok(market.api.POST('/api/admin/listings/{id}/approve', { params: { path: { id } }, body: {} })).then(done, setActionError);
  return (
    <>
      <Link to="/listings">{t('common.back')}</Link>
      <Typography.Title level={3}>{l.title}</Typography.Title>
      {actionError ? <ProblemAlert error={actionError} /> : null}
      {reviewable ? (
        <Space style={{ marginBottom: 16 }}>
          <Button type="primary" onClick={approve}>
            {t('listing.approve')}
          </Button>
          <ReasonButton
            danger
            label={t('listing.reject')}
            reasonLabel={t('listing.rejectReason')}
            onSubmit={(reason) => ok(market.api.POST('/api/admin/listings/{id}/reject', { params: { path: { id } }, body: { reason } })).then(done)}
          />
        </Space>
      ) : null}
      <Descriptions bordered column={2} aria-label={l.title}>
        <Descriptions.Item label={t('listing.game')}>{l.game}</Descriptions.Item>
        <Descriptions.Item label={t('listing.owner')}>
          {can('users') ? <Link to={`/users?id=${l.owner_id}`}>{l.owner_id}</Link> : l.owner_id}
        </Descriptions.Item>
        <Descriptions.Item label={t('listing.price')}>{yuan(l.hourly_price)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.deposit')}>{yuan(l.deposit)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.hours')}>
          {l.min_hours} – {l.max_hours ?? '∞'}
        </Descriptions.Item>
        <Descriptions.Item label={t('common.status')}>
          <Tag>{l.status}</Tag> <Tag>{l.review_status}</Tag> {l.reject_reason}
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
