import { Link } from 'react-router';
import { Tag } from 'antd';
import type { Schema } from '@market/sdk';
import { label, t } from '../i18n';
import { ListView } from '../components/ListView';
import { Status } from '../components/Status';
import { useCursorTable } from '../components/use-cursor-table';
import { when } from '../components/format';

type Entry = Schema<'AuditLog'>;

/** Where an entry's target is shown in the console. */
function targetLink(e: Entry) {
  if (!e.biz_id) return e.biz_type;
  const to: Record<string, string> = {
    listing: `/listings/${e.biz_id}`,
    order: `/orders/${e.biz_id}`,
    dispute: `/disputes?status=resolved`,
    user: `/users`,
    system_config: `/configs`,
    admin: `/admins`,
  };
  const path = to[e.biz_type];
  const label = `${e.biz_type} ${e.biz_id}`;
  return path ? <Link to={path}>{label}</Link> : label;
}

export default function Audit() {
  const list = useCursorTable<Entry>('audit', [
    { name: 'actor_id', label: t('audit.actor') },
    { name: 'action', label: t('audit.action') },
    { name: 'biz_type', label: t('audit.target') },
  ]);
  return (
    <ListView<Entry>
      title={t('menu.audit')}
      list={list}
      rowKey="id"
      columns={[
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        { title: t('audit.actor'), dataIndex: 'actor_id', render: (id: string | null, e) => `${label('actor', e.actor_type)} ${id ?? ''}` },
        { title: t('audit.action'), dataIndex: 'action', render: (a: string) => <Tag>{a}</Tag> },
        { title: t('audit.target'), key: 'target', render: (_, e) => targetLink(e) },
        { title: t('audit.result'), dataIndex: 'result', render: (r: string) => <Status kind="auditResult" value={r} color={r === 'failure' ? 'red' : undefined} /> },
        { title: t('common.detail'), dataIndex: 'detail', render: (d: unknown) => <code>{JSON.stringify(d)}</code> },
      ]}
    />
  );
}
