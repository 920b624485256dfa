import { Link } from 'react-router';
import { Button, Form, Select, Space, Tag, Typography } from 'antd';
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
  const list = useCursorList<Listing>(['pending', 'status', 'review_status', 'owner_id'], (q) =>
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
  const filters = (
    <Form layout="inline" style={{ marginBottom: 16 }} initialValues={list.filters} onFinish={(v) => list.setFilters(v)} key={JSON.stringify(list.filters)}>
      <Form.Item label={t('listing.pendingOnly')} name="pending">
        <Select aria-label={t('listing.pendingOnly')} allowClear style={{ width: 120 }} options={[{ value: '1', label: t('listing.pendingOnly') }]} />
      </Form.Item>
      <Form.Item label={t('common.status')} name="status">
        <Select aria-label={t('common.status')} allowClear style={{ width: 140 }} options={STATUSES.map((s) => ({ value: s, label: s }))} />
      </Form.Item>
      <Form.Item label={t('listing.review')} name="review_status">
        <Select aria-label={t('listing.review')} allowClear style={{ width: 140 }} options={REVIEWS.map((s) => ({ value: s, label: s }))} />
      </Form.Item>
      <Space>
        <Button type="primary" htmlType="submit">
          {t('common.search')}
        </Button>
        <Button onClick={() => list.setFilters({})}>{t('common.reset')}</Button>
      </Space>
    </Form>
  );
  return (
    <>
      <Typography.Title level={3}>{t('menu.listings')}</Typography.Title>
      <ListView<Listing>
        list={list}
        rowKey="id"
        label={t('menu.listings')}
        filters={filters}
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
    </>
  );
}
