import { App, Button, Space, Tag } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../../session';
import { can } from '../../access';
import { t } from '../../i18n';
import { ListView } from '../../components/ListView';
import { ReasonButton } from '../../components/ReasonDialog';
import { useCursorList } from '../../components/use-cursor-list';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Refund = Schema<'Refund'>;
const STATUSES: Refund['status'][] = ['requested', 'approved', 'processing', 'refunded', 'failed', 'rejected'];
const KINDS: Refund['kind'][] = ['user_request', 'late_success', 'amount_mismatch'];
const COLORS: Partial<Record<Refund['status'], string>> = { requested: 'orange', refunded: 'green', failed: 'red', rejected: 'red' };

/** Refunds to review: approving holds the amount and sends the refund, rejecting (with a reason) changes no balance. */
export default function Refunds() {
  const { message } = App.useApp();
  const list = useCursorList<Refund>(
    [
      { name: 'status', label: t('common.status'), options: STATUSES, width: 160 },
      { name: 'kind', label: t('money.refundKind'), options: KINDS, width: 180 },
      { name: 'user_id', label: t('money.user') },
      { name: 'payment_id', label: t('money.payment') },
    ],
    (q) =>
      ok(
        market.api.GET('/api/admin/refunds', {
          params: {
            query: { cursor: q.cursor, status: q.status as Refund['status'] | undefined, kind: q.kind as Refund['kind'] | undefined, user_id: q.user_id, payment_id: q.payment_id },
          },
        }),
      ),
  );
  const done = () => {
    void message.success(t('common.done'));
    list.reload();
  };
  const approve = (r: Refund) =>
    ok(market.api.POST('/api/admin/refunds/{id}/approve', { params: { path: { id: r.id } }, body: {} })).then(done, (e: unknown) => message.error(String(e)));
  const reject = (r: Refund) => (reason: string) => ok(market.api.POST('/api/admin/refunds/{id}/reject', { params: { path: { id: r.id } }, body: { reason } })).then(done);
  return (
    <ListView<Refund>
      title={t('menu.money')}
      extra={<MoneyTabs />}
      list={list}
      rowKey="id"
      columns={[
        { title: t('money.user'), dataIndex: 'user_id' },
        { title: t('money.payment'), dataIndex: 'payment_id' },
        { title: t('order.amount'), dataIndex: 'amount', render: yuan },
        { title: t('money.channel'), dataIndex: 'provider' },
        { title: t('money.refundKind'), dataIndex: 'kind' },
        { title: t('common.status'), dataIndex: 'status', render: (s: Refund['status']) => <Tag color={COLORS[s]}>{s}</Tag> },
        { title: t('common.reason'), dataIndex: 'reason' },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        {
          title: t('money.review'),
          key: 'actions',
          render: (_, r) =>
            r.status === 'requested' && can('refunds.manage') ? (
              <Space>
                <Button type="primary" onClick={() => approve(r)}>
                  {t('money.approveRefund')}
                </Button>
                <ReasonButton danger label={t('money.rejectRefund')} reasonLabel={t('money.rejectReason')} onSubmit={reject(r)} />
              </Space>
            ) : null,
        },
      ]}
    />
  );
}
