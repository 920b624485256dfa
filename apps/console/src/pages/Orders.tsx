import { Link } from 'react-router';
import { Button, DatePicker, Form, Input, Select, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { useCursorList } from '../components/use-cursor-list';
import { when, yuan } from '../components/format';

type Order = Schema<'Order'>;
const STATUSES: Order['status'][] = [
  'pending_payment', 'pending_handoff', 'pending_receive', 'in_use', 'pending_checkout_confirm',
  'pending_correction_confirm', 'disputed', 'completed', 'cancelled', 'closed', 'abnormal',
];

export default function Orders() {
  const list = useCursorList<Order>(['status', 'renter_id', 'owner_id', 'listing_id', 'created_from', 'created_to'], (q) =>
    ok(market.api.GET('/api/admin/orders', { params: { query: { ...q, status: q.status as Order['status'] | undefined } } })),
  );
  const initial = {
    ...list.filters,
    created_from: list.filters.created_from ? dayjs(list.filters.created_from) : undefined,
    created_to: list.filters.created_to ? dayjs(list.filters.created_to) : undefined,
  };
  const submit = (v: Record<string, string | Dayjs | undefined>) =>
    list.setFilters({
      ...(v as Record<string, string | undefined>),
      created_from: v.created_from ? (v.created_from as Dayjs).startOf('day').toISOString() : undefined,
      created_to: v.created_to ? (v.created_to as Dayjs).endOf('day').toISOString() : undefined,
    });
  return (
    <>
      <Typography.Title level={3}>{t('menu.orders')}</Typography.Title>
      <ListView<Order>
        list={list}
        rowKey="id"
        label={t('menu.orders')}
        filters={
          <Form layout="inline" style={{ marginBottom: 16, rowGap: 8 }} initialValues={initial} onFinish={submit} key={JSON.stringify(list.filters)}>
            <Form.Item label={t('common.status')} name="status">
              <Select aria-label={t('common.status')} allowClear style={{ width: 200 }} options={STATUSES.map((s) => ({ value: s, label: s }))} />
            </Form.Item>
            <Form.Item label={t('order.renter')} name="renter_id">
              <Input allowClear />
            </Form.Item>
            <Form.Item label={t('listing.owner')} name="owner_id">
              <Input allowClear />
            </Form.Item>
            <Form.Item label={t('order.from')} name="created_from">
              <DatePicker aria-label={t('order.from')} />
            </Form.Item>
            <Form.Item label={t('order.to')} name="created_to">
              <DatePicker aria-label={t('order.to')} />
            </Form.Item>
            <Button type="primary" htmlType="submit">
              {t('common.search')}
            </Button>
          </Form>
        }
        columns={[
          { title: 'ID', dataIndex: 'id', render: (id: string) => <Link to={`/orders/${id}`}>{id.slice(-12)}</Link> },
          { title: t('listing.title'), dataIndex: 'listing_title' },
          { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Tag>{s}</Tag> },
          { title: t('order.amount'), dataIndex: 'amount', render: yuan },
          { title: t('common.created'), dataIndex: 'created_at', render: when },
        ]}
      />
    </>
  );
}
