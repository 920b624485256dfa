import { useState } from 'react';
import { App, Button, Form, Input, Modal, Tag, Typography } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { can } from '../access';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { ProblemAlert } from '../components/ProblemAlert';
import { useCursorList } from '../components/use-cursor-list';
import { when } from '../components/format';

type Admin = Schema<'Admin'>;

function CreateAdmin({ onCreated }: { onCreated: () => void }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [form] = Form.useForm<{ username: string; nickname: string; password: string }>();
  const create = async (body: { username: string; nickname: string; password: string }) => {
    try {
      await ok(market.api.POST('/api/admin/admins', { body }));
      setOpen(false);
      form.resetFields();
      onCreated();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <Button type="primary" onClick={() => setOpen(true)} style={{ marginBottom: 16 }}>
        {t('admin.create')}
      </Button>
      <Modal title={t('admin.create')} open={open} onCancel={() => setOpen(false)} onOk={() => form.submit()} okText={t('common.confirm')} cancelText={t('common.cancel')}>
        {error ? <ProblemAlert error={error} /> : null}
        <Form form={form} layout="vertical" onFinish={create}>
          <Form.Item label={t('admin.username')} name="username" rules={[{ required: true, pattern: /^[a-z0-9_.-]{3,32}$/ }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('admin.nickname')} name="nickname" rules={[{ required: true, max: 32 }]}>
            <Input />
          </Form.Item>
          <Form.Item label={t('admin.password')} name="password" rules={[{ required: true, min: 12, max: 200 }]}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}

export default function Admins() {
  const { message } = App.useApp();
  const list = useCursorList<Admin>(['status'], (q) => ok(market.api.GET('/api/admin/admins', { params: { query: { cursor: q.cursor, status: q.status as Admin['status'] | undefined } } })));
  const toggle = (a: Admin) =>
    ok(market.api.POST(a.status === 'active' ? '/api/admin/admins/{id}/disable' : '/api/admin/admins/{id}/enable', { params: { path: { id: a.id } }, body: {} })).then(
      () => list.reload(),
      (e: unknown) => message.error(String(e)),
    );
  return (
    <>
      <Typography.Title level={3}>{t('menu.admins')}</Typography.Title>
      {can('admins.manage') ? <CreateAdmin onCreated={list.reload} /> : null}
      <ListView<Admin>
        list={list}
        rowKey="id"
        label={t('menu.admins')}
        columns={[
          { title: t('admin.username'), dataIndex: 'username' },
          { title: t('admin.nickname'), dataIndex: 'nickname' },
          { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Tag color={s === 'active' ? 'green' : 'red'}>{s}</Tag> },
          { title: t('common.created'), dataIndex: 'created_at', render: when },
          {
            title: t('common.detail'),
            key: 'actions',
            render: (_, a) =>
              can('admins.manage') ? (
                <Button danger={a.status === 'active'} onClick={() => toggle(a)} aria-label={`${a.status === 'active' ? t('admin.disable') : t('admin.enable')} ${a.username}`}>
                  {a.status === 'active' ? t('admin.disable') : t('admin.enable')}
                </Button>
              ) : null,
          },
        ]}
      />
    </>
  );
}
