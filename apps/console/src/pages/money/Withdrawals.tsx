import { Button, Space } from 'antd';
import type { Schema } from '@market/sdk';
import { t } from '../../i18n';
import { useAllowed } from '../../use-allowed';
import { ListView } from '../../components/ListView';
import { ReasonButton } from '../../components/ReasonDialog';
import { Person, usePeople } from '../../components/people';
import { Status } from '../../components/Status';
import { useCursorTable } from '../../components/use-cursor-table';
import { useMove } from '../../components/use-move';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Withdrawal = Schema<'Withdrawal'>;
const STATUSES: Withdrawal['status'][] = ['pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled'];
const COLORS: Partial<Record<Withdrawal['status'], string>> = { pending_review: 'orange', paid: 'green', failed: 'red', rejected: 'red' };

/** Withdrawals to review: approving sends the transfer, rejecting (with a reason) gives the hold back. */
export default function Withdrawals() {
  const list = useCursorTable<Withdrawal>('withdrawals', [
    { name: 'status', label: t('common.status'), options: STATUSES, labels: 'withdrawal', width: 160 },
    { name: 'channel', label: t('money.channel'), options: ['alipay', 'wechatpay'], labels: 'channel', width: 140 },
    { name: 'user_id', label: t('money.user') },
  ]);
  const move = useMove();
  const people = usePeople(list.items.map((w) => w.user_id));
  const manage = useAllowed('withdrawals.manage');
  const approve = (w: Withdrawal) => move('/api/admin/withdrawals/{id}/approve', { id: w.id }, {}, { notifyRefusal: true }).then(list.reload, list.reload);
  const reject = (w: Withdrawal) => (reason: string) => move('/api/admin/withdrawals/{id}/reject', { id: w.id }, { reason }).then(list.reload);
  return (
    <ListView<Withdrawal>
      title={t('menu.money')}
      extra={<MoneyTabs />}
      list={list}
      rowKey="id"
      columns={[
        { title: t('money.person'), dataIndex: 'user_id', render: (id: string) => <Person id={id} people={people} /> },
        { title: t('order.amount'), dataIndex: 'amount', render: yuan },
        { title: t('money.channel'), dataIndex: 'channel', render: (c: string) => <Status kind="channel" value={c} /> },
        { title: t('money.payee'), key: 'payee', render: (_, w) => `${w.payee_name_masked} · ${w.payee_account_masked}` },
        { title: t('common.status'), dataIndex: 'status', render: (s: Withdrawal['status']) => <Status kind="withdrawal" value={s} color={COLORS[s]} /> },
        { title: t('common.reason'), dataIndex: 'reason' },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        {
          title: t('money.review'),
          key: 'actions',
          render: (_, w) =>
            w.status === 'pending_review' && manage ? (
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
