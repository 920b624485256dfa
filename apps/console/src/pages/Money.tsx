import { Link } from 'react-router';
import { Button, Form, Input, Select, Typography } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { useCursorList } from '../components/use-cursor-list';
import { when, yuan } from '../components/format';

type Entry = Schema<'LedgerEntry'>;
const BIZ: Entry['biz_type'][] = ['recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment'];

/** Every user's ledger entries as the admin API offers them; recharges are the `recharge` entries. */
export default function Money() {
  const list = useCursorList<Entry>(['biz_type', 'user_id', 'order_id'], (q) =>
    ok(market.api.GET('/api/admin/wallet/ledger', { params: { query: { cursor: q.cursor, biz_type: q.biz_type as Entry['biz_type'] | undefined, user_id: q.user_id, order_id: q.order_id } } })),
  );
  return (
    <>
      <Typography.Title level={3}>{t('menu.money')}</Typography.Title>
      <ListView<Entry>
        list={list}
        rowKey="id"
        label={t('menu.money')}
        filters={
          <Form layout="inline" style={{ marginBottom: 16 }} initialValues={list.filters} onFinish={(v) => list.setFilters(v)} key={JSON.stringify(list.filters)}>
            <Form.Item label={t('money.biz')} name="biz_type">
              <Select aria-label={t('money.biz')} allowClear style={{ width: 180 }} options={BIZ.map((s) => ({ value: s, label: s }))} />
            </Form.Item>
            <Form.Item label={t('money.user')} name="user_id">
              <Input allowClear />
            </Form.Item>
            <Form.Item label={t('money.order')} name="order_id">
              <Input allowClear />
            </Form.Item>
            <Button type="primary" htmlType="submit">
              {t('common.search')}
            </Button>
          </Form>
        }
        columns={[
          { title: t('money.biz'), dataIndex: 'biz_type' },
          { title: t('money.user'), dataIndex: 'user_id' },
          { title: t('money.order'), dataIndex: 'order_id', render: (id: string | null) => (id ? <Link to={`/orders/${id}`}>{id.slice(-12)}</Link> : '—') },
          { title: t('order.amount'), dataIndex: 'amount', render: yuan },
          { title: t('money.balanceAfter'), dataIndex: 'balance_after', render: yuan },
          { title: t('common.created'), dataIndex: 'created_at', render: when },
        ]}
      />
    </>
  );
}
