import { Link } from 'react-router';
import { Tag } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { useCursorList } from '../components/use-cursor-list';
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
  const list = useCursorList<Entry>(
    [
      { name: 'actor_id', label: t('audit.actor') },
      { name: 'action', label: t('audit.action') },
      { name: 'biz_type', label: t('audit.target') },
    ],
    (q) => ok(market.api.GET('/api/admin/audit-logs', { params: { query: q } })),
  );
  return (
    <ListView<Entry>
      title={t('menu.audit')}
      list={list}
      rowKey="id"
      columns={[
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        { title: t('audit.actor'), dataIndex: 'actor_id', render: (id: string | null, e) => `${e.actor_type} ${id ?? ''}` },
        { title: t('audit.action'), dataIndex: 'action', render: (a: string) => <Tag>{a}</Tag> },
        { title: t('audit.target'), key: 'target', render: (_, e) => targetLink(e) },
        { title: t('audit.result'), dataIndex: 'result' },
        { title: t('common.detail'), dataIndex: 'detail', render: (d: unknown) => <code>{JSON.stringify(d)}</code> },
      ]}
    />
  );
}
