import { Link } from 'react-router';
import type { TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { t } from '../../i18n';
import { ListPage, type ListPageState } from '../../components/ListPage';
import { Person, usePeople } from '../../components/people';
import { Status } from '../../components/Status';
import type { FilterField } from '../../components/use-cursor-table';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Entry = Schema<'LedgerEntry'>;
const BIZ: Entry['biz_type'][] = [
  'recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment', 'withdrawal', 'withdrawal_payout', 'withdrawal_refund', 'refund_hold', 'refund_payout', 'refund_release',
];

const filters = (): FilterField[] => [
  { name: 'biz_type', label: t('money.biz'), options: BIZ, labels: 'biz', width: 180 },
  { name: 'user_id', label: t('money.user') },
  { name: 'order_id', label: t('money.order') },
];

/** Each entry's person by nickname and phone. */
function useColumns({ list }: ListPageState<Entry>): TableColumnsType<Entry> {
  const people = usePeople(list.items.map((e) => e.user_id));
  return [
    { title: t('money.biz'), dataIndex: 'biz_type', render: (b: string) => <Status kind="biz" value={b} /> },
    { title: t('money.person'), dataIndex: 'user_id', render: (id: string) => <Person id={id} people={people} /> },
    { title: t('money.order'), dataIndex: 'order_id', render: (id: string | null) => (id ? <Link to={`/orders/${id}`}>{id.slice(-12)}</Link> : '—') },
    { title: t('order.amount'), dataIndex: 'amount', render: yuan },
    { title: t('money.balanceAfter'), dataIndex: 'balance_after', render: yuan },
    { title: t('common.created'), dataIndex: 'created_at', render: when },
  ];
}

/** Every user's ledger entries as the admin API offers them; recharges are the `recharge` entries. */
export default function Ledger() {
  return <ListPage<Entry> resource="ledger" title={t('menu.money')} extra={<MoneyTabs />} filters={filters()} useColumns={useColumns} />;
}
