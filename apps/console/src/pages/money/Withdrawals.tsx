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

type Withdrawal = Schema<'Withdrawal'>;
const STATUSES: Withdrawal['status'][] = ['pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled', 'reversed'];
const COLORS: Partial<Record<Withdrawal['status'], string>> = { pending_review: 'orange', paid: 'green', failed: 'red', rejected: 'red', reversed: 'purple' };

/** Withdrawals to review: approving sends the transfer, rejecting (with a reason) gives the hold back. */
export default function Withdrawals() {
  const { message } = App.useApp();
  const list = useCursorList<Withdrawal>(
    [
      { name: 'status', label: t('common.status'), options: STATUSES, width: 160 },
      { name: 'channel', label: t('money.channel'), options: ['alipay', 'wechatpay'], width: 140 },
      { name: 'user_id', label: t('money.user') },
    ],
    (q) =>
      ok(
        market.api.GET('/api/admin/withdrawals', {
          params: { query: { cursor: q.cursor, status: q.status as Withdrawal['status'] | undefined, channel: q.channel as Withdrawal['channel'] | undefined, user_id: q.user_id } },
        }),
      ),
  );
  const done = () => {
    void message.success(t('common.done'));
    list.reload();
  };
  const approve = (w: Withdrawal) =>
    ok(market.api.POST('/api/admin/withdrawals/{id}/approve', { params: { path: { id: w.id } }, body: {} })).then(done, (e: unknown) => message.error(String(e)));
  const reject = (w: Withdrawal) => (reason: string) => ok(market.api.POST('/api/admin/withdrawals/{id}/reject', { params: { path: { id: w.id } }, body: { reason } })).then(done);
  return (
    <ListView<Withdrawal>
      title={t('menu.money')}
      extra={<MoneyTabs />}
      list={list}
      rowKey="id"
      columns={[
        { title: t('money.user'), dataIndex: 'user_id' },
        { title: t('order.amount'), dataIndex: 'amount', render: yuan },
        { title: t('money.channel'), dataIndex: 'channel' },
        { title: t('money.payee'), key: 'payee', render: (_, w) => `${w.payee_name_masked} · ${w.payee_account_masked}` },
        { title: t('common.status'), dataIndex: 'status', render: (s: Withdrawal['status']) => <Tag color={COLORS[s]}>{s}</Tag> },
        { title: t('common.reason'), dataIndex: 'reason' },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        {
          title: t('money.review'),
          key: 'actions',
          render: (_, w) =>
            w.status === 'pending_review' && can('withdrawals.manage') ? (
              <Space>
                <Button type="primary" onClick={() => approve(w)}>
                  {t('money.approve')}
                </Button>
                <ReasonButton danger label={t('money.reject')} reasonLabel={t('money.rejectReason')} onSubmit={reject(w)} />
              </Space>
            ) : null,
        },
      ]}
    />
  );
}
