import { App, Button, Checkbox, Form, Input, Modal, Space, Tag, type TableColumnsType } from 'antd';
import { useGetIdentity, useUpdate } from '@refinedev/core';
import { useModalForm } from '@refinedev/antd';
import { ADMIN_ROLES, type AdminRole } from '@market/contracts';
import type { Schema } from '@market/sdk';
import { useAllowed } from '../use-allowed';
import { t } from '../i18n';
import { ListPage, type ListPageState } from '../components/ListPage';
import { FormDialog } from '../components/FormDialog';
import { ProblemAlert } from '../components/ProblemAlert';
import type { ProblemError } from '../data/problem';
import { Status } from '../components/Status';
import type { FilterField } from '../components/use-cursor-table';
import { useMove } from '../components/use-move';
import { when } from '../components/format';

type Admin = Schema<'Admin'>;
type NewAdmin = { username: string; nickname: string; password: string; roles?: AdminRole[] };

const rolesField = () => (
  <Form.Item label={t('admin.roles')} name="roles">
    <Checkbox.Group options={ADMIN_ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))} />
  </Form.Item>
);

/**
 * A new admin through Refine's form (`useModalForm`, create on the `admins` resource): the list
 * is read again when it succeeds; a field the server refuses is marked on that field (the
 * problem's `errors`), any other refusal shows as the problem in the dialog.
 */
function CreateAdmin() {
  const { modalProps, formProps, show, mutation } = useModalForm<Admin, ProblemError, NewAdmin>({
    resource: 'admins',
    action: 'create',
    redirect: false,
    successNotification: () => ({ message: t('common.done'), type: 'success' }),
    errorNotification: false,
  });
  return (
    <>
      <Button type="primary" style={{ marginBottom: 16 }} onClick={() => show()}>
        {t('admin.create')}
      </Button>
      <Modal {...modalProps} title={t('admin.create')} okText={t('common.confirm')} cancelText={t('common.cancel')}>
        {mutation.error ? <ProblemAlert error={mutation.error} /> : null}
        {/* named: Refine keeps this form mounted, and its field ids must not be the other dialogs' (a label finds its field by id) */}
        <Form {...formProps} name="new-admin" layout="vertical">
          <Form.Item label={t('admin.username')} name="username" rules={[{ required: true, pattern: /^[a-z0-9_.-]{3,32}$/ }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('admin.nickname')} name="nickname" rules={[{ required: true, max: 32 }]}>
            <Input />
          </Form.Item>
          <Form.Item label={t('admin.password')} name="password" rules={[{ required: true, min: 12, max: 200 }]}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          {rolesField()}
        </Form>
      </Modal>
    </>
  );
}

/** Replaces an admin's roles (the server refuses one's own and the last super admin's). */
function EditRoles({ admin, onSaved }: { admin: Admin; onSaved: () => void }) {
  const { mutateAsync } = useUpdate();
  return (
    <FormDialog<{ roles: AdminRole[] }>
      label={t('admin.editRoles')}
      title={`${t('admin.roles')} ${admin.username}`}
      ariaLabel={`${t('admin.editRoles')} ${admin.username}`}
      okText={t('common.save')}
      initialValues={{ roles: admin.roles }}
      onSubmit={({ roles }) => mutateAsync({ resource: 'admins', id: admin.id, values: { roles }, mutationMode: 'pessimistic', successNotification: false, errorNotification: false }).then(onSaved)}
    >
      {rolesField()}
    </FormDialog>
  );
}

/**
 * Sets another admin's password, typed twice (the server checks the creation rule too and ends that
 * admin's sessions). Not offered on one's own row: the server refuses it, one's own password is
 * changed with the current one.
 */
function ResetPassword({ admin, onDone }: { admin: Admin; onDone: () => void }) {
  const move = useMove();
  return (
    <FormDialog<{ password: string; repeat: string }>
      label={t('admin.resetPassword')}
      title={`${t('admin.resetPassword')} ${admin.username}`}
      ariaLabel={`${t('admin.resetPassword')} ${admin.username}`}
      okText={t('common.save')}
      onSubmit={({ password }) => move('/api/admin/admins/{id}/password', { id: admin.id }, { password }).then(onDone)}
    >
      <Form.Item label={t('admin.newPassword')} name="password" rules={[{ required: true, min: 12, max: 200 }]}>
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        label={t('admin.repeatPassword')}
        name="repeat"
        dependencies={['password']}
        rules={[
          { required: true },
          ({ getFieldValue }) => ({
            validator: (_, value) => (!value || value === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('admin.passwordsDiffer')))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </FormDialog>
  );
}

const filters = (): FilterField[] => [{ name: 'status', label: t('common.status'), options: ['active', 'disabled'], labels: 'admin', width: 120 }];

/** Each admin's roles and status, and for a super admin the moves on every other admin. */
function useColumns({ list }: ListPageState<Admin>): TableColumnsType<Admin> {
  const { message } = App.useApp();
  const move = useMove();
  const manage = useAllowed('admins.manage');
  const toggle = (a: Admin) =>
    move(a.status === 'active' ? '/api/admin/admins/{id}/disable' : '/api/admin/admins/{id}/enable', { id: a.id }, {}, { notifyRefusal: true }).then(list.reload, list.reload);
  const { data: self } = useGetIdentity<{ id: string }>();
  return [
    { title: t('admin.username'), dataIndex: 'username' },
    { title: t('admin.nickname'), dataIndex: 'nickname' },
    { title: t('admin.roles'), dataIndex: 'roles', render: (roles: AdminRole[]) => roles.map((r) => <Tag key={r}>{t(`role.${r}`)}</Tag>) },
    { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Status kind="admin" value={s} color={s === 'active' ? 'green' : 'red'} /> },
    { title: t('common.created'), dataIndex: 'created_at', render: when },
    {
      title: t('common.detail'),
      key: 'actions',
      // nobody changes their own roles, disables themselves or resets their own password here (the server refuses each)
      render: (_, a) =>
        manage && self && a.id !== self.id ? (
          <Space>
            <EditRoles admin={a} onSaved={list.reload} />
            <ResetPassword admin={a} onDone={() => void message.success(t('admin.resetDone'))} />
            <Button danger={a.status === 'active'} onClick={() => toggle(a)} aria-label={`${a.status === 'active' ? t('admin.disable') : t('admin.enable')} ${a.username}`}>
              {a.status === 'active' ? t('admin.disable') : t('admin.enable')}
            </Button>
          </Space>
        ) : null,
    },
  ];
}

export default function Admins() {
  const manage = useAllowed('admins.manage');
  return <ListPage<Admin> resource="admins" title={t('menu.admins')} extra={manage ? <CreateAdmin /> : null} filters={filters()} useColumns={useColumns} />;
}
