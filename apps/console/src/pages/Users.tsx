import { useState } from 'react';
import { Link } from 'react-router';
import { App, Button, Descriptions, Drawer, Space, Tag } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { can } from '../access';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { ReasonButton } from '../components/ReasonDialog';
import { useCursorList } from '../components/use-cursor-list';
import { when } from '../components/format';

type User = Schema<'UserAdminView'>;

function UserDrawer({ user, onClose, onChanged }: { user: User; onClose: () => void; onChanged: (u: User) => void }) {
  const { message } = App.useApp();
  const changed = (u: User) => {
    onChanged(u);
    void message.success(t('common.done'));
  };
  return (
    <Drawer open title={user.nickname} onClose={onClose} width={520}>
      <Descriptions column={1} bordered size="small">
        <Descriptions.Item label="ID">{user.id}</Descriptions.Item>
        <Descriptions.Item label={t('user.phone')}>{user.phone_masked}</Descriptions.Item>
        <Descriptions.Item label={t('user.realname')}>{user.realname_status}</Descriptions.Item>
        <Descriptions.Item label={t('common.status')}>
          {user.frozen ? <Tag color="red">{t('user.frozen')}</Tag> : <Tag color="green">{t('user.active')}</Tag>} {user.frozen_reason}
        </Descriptions.Item>
        <Descriptions.Item label={t('common.created')}>{when(user.created_at)}</Descriptions.Item>
      </Descriptions>
      <Space style={{ marginTop: 16 }} wrap>
        {can('users.freeze') && !user.frozen ? (
          <ReasonButton
            danger
            label={t('user.freeze')}
            reasonLabel={t('user.freezeReason')}
            onSubmit={(reason) => ok(market.api.POST('/api/admin/users/{id}/freeze', { params: { path: { id: user.id } }, body: { reason } })).then(changed)}
          />
        ) : null}
        {can('users.freeze') && user.frozen ? (
          <Button onClick={() => ok(market.api.POST('/api/admin/users/{id}/unfreeze', { params: { path: { id: user.id } }, body: {} })).then(changed, (e: unknown) => message.error(String(e)))}>
            {t('user.unfreeze')}
          </Button>
        ) : null}
        {can('orders') ? <Link to={`/orders?renter_id=${user.id}`}>{t('user.orders')}</Link> : null}
        {can('money') ? <Link to={`/money?user_id=${user.id}`}>{t('user.ledger')}</Link> : null}
      </Space>
    </Drawer>
  );
}

export default function Users() {
  const list = useCursorList<User>(
    [
      { name: 'phone', label: t('user.phone') },
      { name: 'frozen', label: t('common.status'), options: [{ value: 'true', label: t('user.frozen') }, { value: 'false', label: t('user.active') }], width: 120 },
      { name: 'realname_status', label: t('user.realname'), options: ['unverified', 'pending', 'verified', 'failed'], width: 140 },
    ],
    (q) =>
      ok(
        market.api.GET('/api/admin/users', {
          params: { query: { cursor: q.cursor, phone: q.phone, frozen: q.frozen as 'true' | 'false' | undefined, realname_status: q.realname_status as User['realname_status'] | undefined } },
        }),
      ),
  );
  const [open, setOpen] = useState<User | null>(null);
  return (
    <>
      <ListView<User>
        title={t('menu.users')}
        list={list}
        rowKey="id"
        columns={[
          { title: t('user.nickname'), dataIndex: 'nickname', render: (n: string, u) => <Button type="link" onClick={() => setOpen(u)}>{n || u.id}</Button> },
          { title: t('user.phone'), dataIndex: 'phone_masked' },
          { title: t('user.realname'), dataIndex: 'realname_status' },
          { title: t('common.status'), dataIndex: 'frozen', render: (f: boolean) => (f ? <Tag color="red">{t('user.frozen')}</Tag> : <Tag color="green">{t('user.active')}</Tag>) },
          { title: t('common.created'), dataIndex: 'created_at', render: when },
        ]}
      />
      {open ? (
        <UserDrawer
          user={open}
          onClose={() => setOpen(null)}
          onChanged={(u) => {
            setOpen(u);
            list.reload();
          }}
        />
      ) : null}
    </>
  );
}
