import { Link } from 'react-router';
import { Button, Descriptions, Space, Tag, type TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { CanAccess, useCustom } from '@refinedev/core';
import { t } from '../i18n';
import { ListPage, type ListPageState } from '../components/ListPage';
import { ReasonButton } from '../components/ReasonDialog';
import { SideDrawer } from '../components/SideDrawer';
import { Status } from '../components/Status';
import type { FilterField } from '../components/use-cursor-table';
import { useMove } from '../components/use-move';
import { when } from '../components/format';
import { Person, usePeople } from '../components/people';

type User = Schema<'UserAdminView'>;
type Standing = Schema<'RenterStanding'>;

/** The user as a renter: the new-renter limits as they apply now, and the blocks by and of them (ADR 0065). */
function RenterStandingView({ id }: { id: string }) {
  const { query } = useCustom<Standing>({ url: '/api/admin/renters/{id}/standing', method: 'get', meta: { path: { id } }, errorNotification: false });
  const standing = query.data?.data;
  const people = usePeople([...(standing?.blocked_by.map((b) => b.owner_id) ?? []), ...(standing?.blocking.map((b) => b.user_id) ?? [])]);
  if (!standing) return null;
  const limit = (value: number | null) => (value === null ? t('renter.noLimit') : String(value));
  const trust = standing.trusted ? t('renter.trusted') : standing.exempt ? t('renter.exempt') : t('renter.new');
  return (
    <Descriptions column={1} bordered size="small" title={t('renter.title')} style={{ marginTop: 16 }}>
      <Descriptions.Item label={t('renter.standing')}>{trust}</Descriptions.Item>
      <Descriptions.Item label={t('renter.completed')}>{standing.completed_orders}</Descriptions.Item>
      <Descriptions.Item label={t('renter.active')}>{`${standing.active_orders} / ${limit(standing.max_active)}`}</Descriptions.Item>
      <Descriptions.Item label={t('renter.today')}>{`${standing.orders_today} / ${limit(standing.max_daily)}`}</Descriptions.Item>
      <Descriptions.Item label={t('renter.blockedBy')}>
        {standing.blocked_by.length === 0 ? '—' : standing.blocked_by.map((b) => <div key={b.owner_id}><Person id={b.owner_id} people={people} /> · {when(b.created_at)}</div>)}
      </Descriptions.Item>
      <Descriptions.Item label={t('renter.blocking')}>
        {standing.blocking.length === 0 ? '—' : standing.blocking.map((b) => <div key={b.user_id}><Person id={b.user_id} people={people} /> · {when(b.created_at)}</div>)}
      </Descriptions.Item>
    </Descriptions>
  );
}

const frozenTag = (frozen: boolean) => (frozen ? <Tag color="red">{t('user.frozen')}</Tag> : <Tag color="green">{t('user.active')}</Tag>);

function UserDrawer({ user, onClose, onChanged }: { user: User; onClose: () => void; onChanged: (u: User) => void }) {
  const move = useMove();
  const path = { id: user.id };
  return (
    <SideDrawer title={user.nickname} onClose={onClose} width={520}>
      <Descriptions column={1} bordered size="small">
        <Descriptions.Item label="ID">{user.id}</Descriptions.Item>
        <Descriptions.Item label={t('user.phone')}>{user.phone_masked}</Descriptions.Item>
        <Descriptions.Item label={t('user.realname')}>
          <Status kind="realname" value={user.realname_status} />
        </Descriptions.Item>
        <Descriptions.Item label={t('common.status')}>
          {frozenTag(user.frozen)} {user.frozen_reason}
        </Descriptions.Item>
        <Descriptions.Item label={t('common.created')}>{when(user.created_at)}</Descriptions.Item>
      </Descriptions>
      <RenterStandingView id={user.id} />
      <Space style={{ marginTop: 16 }} wrap>
        <CanAccess resource="users" action="freeze">
          {user.frozen ? (
            <Button onClick={() => move<User>('/api/admin/users/{id}/unfreeze', path, {}, { notifyRefusal: true }).then(onChanged, () => undefined)}>{t('user.unfreeze')}</Button>
          ) : (
            <ReasonButton danger label={t('user.freeze')} reasonLabel={t('user.freezeReason')} onSubmit={(reason) => move<User>('/api/admin/users/{id}/freeze', path, { reason }).then(onChanged)} />
          )}
        </CanAccess>
        <CanAccess resource="orders" action="list">
          <Link to={`/orders?renter_id=${user.id}`}>{t('user.orders')}</Link>
        </CanAccess>
        <CanAccess resource="money" action="list">
          <Link to={`/money?user_id=${user.id}`}>{t('user.ledger')}</Link>
        </CanAccess>
      </Space>
    </SideDrawer>
  );
}

const filters = (): FilterField[] => [
  { name: 'ids', label: 'ID' },
  { name: 'phone', label: t('user.phone') },
  { name: 'frozen', label: t('common.status'), options: [{ value: 'true', label: t('user.frozen') }, { value: 'false', label: t('user.active') }], width: 120 },
  { name: 'realname_status', label: t('user.realname'), options: ['unverified', 'pending', 'verified', 'failed'], labels: 'realname', width: 140 },
];

/** The users' columns; the nickname opens the user's drawer. */
const columns = ({ open }: ListPageState<User>): TableColumnsType<User> => [
  { title: t('user.nickname'), dataIndex: 'nickname', render: (n: string, u) => <Button type="link" onClick={() => open(u)}>{n || u.id}</Button> },
  { title: t('user.phone'), dataIndex: 'phone_masked' },
  { title: t('user.realname'), dataIndex: 'realname_status', render: (s: string) => <Status kind="realname" value={s} /> },
  { title: t('common.status'), dataIndex: 'frozen', render: frozenTag },
  { title: t('common.created'), dataIndex: 'created_at', render: when },
];

/** A freeze or an unfreeze shows the user anew in the drawer and reads the list again. */
const drawer = (user: User, { list, open, close }: ListPageState<User>) => (
  <UserDrawer
    user={user}
    onClose={close}
    onChanged={(u) => {
      open(u);
      list.reload();
    }}
  />
);

export default function Users() {
  return <ListPage<User> resource="users" title={t('menu.users')} filters={filters()} useColumns={columns} drawer={drawer} />;
}
