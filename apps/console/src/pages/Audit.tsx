import { useState } from 'react';
import { Link } from 'react-router';
import { Button, Tag, type TableColumnsType } from 'antd';
import type { Schema } from '@market/sdk';
import { label, t } from '../i18n';
import type { ProblemError } from '../data/problem';
import { ChainBreaks } from '../components/ChainBreaks';
import { ListPage } from '../components/ListPage';
import { ProblemAlert } from '../components/ProblemAlert';
import { useMove } from '../components/use-move';
import { Status } from '../components/Status';
import type { FilterField } from '../components/use-cursor-table';
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

/** Recomputes the audit log's hash chains on the server and shows what it found (ADR 0067). */
function VerifyChains() {
  const move = useMove();
  const [state, setState] = useState<{ found?: Schema<'AuditChainVerification'>; error?: ProblemError; running: boolean }>({ running: false });
  const verify = () => {
    setState({ running: true });
    move<Schema<'AuditChainVerification'>>('/api/admin/audit-logs/verify', {}).then(
      (found) => setState({ found, running: false }),
      (error: ProblemError) => setState({ error, running: false }),
    );
  };
  return (
    <div style={{ marginBottom: 16 }}>
      <Button onClick={verify} loading={state.running} style={{ marginBottom: 16 }}>
        {t('chains.verify')}
      </Button>
      {state.error ? <ProblemAlert error={state.error} onRetry={verify} /> : null}
      {state.found ? <ChainBreaks breaks={state.found.breaks} intact={t('chains.intact', { chains: state.found.chains, entries: state.found.entries })} /> : null}
    </div>
  );
}

const filters = (): FilterField[] => [
  { name: 'actor_id', label: t('audit.actor') },
  { name: 'action', label: t('audit.action') },
  { name: 'biz_type', label: t('audit.target') },
];

const columns = (): TableColumnsType<Entry> => [
  { title: t('common.created'), dataIndex: 'created_at', render: when },
  { title: t('audit.actor'), dataIndex: 'actor_id', render: (id: string | null, e) => `${label('actor', e.actor_type)} ${id ?? ''}` },
  { title: t('audit.action'), dataIndex: 'action', render: (a: string) => <Tag>{a}</Tag> },
  { title: t('audit.target'), key: 'target', render: (_, e) => targetLink(e) },
  { title: t('audit.result'), dataIndex: 'result', render: (r: string) => <Status kind="auditResult" value={r} color={r === 'failure' ? 'red' : undefined} /> },
  { title: t('common.detail'), dataIndex: 'detail', render: (d: unknown) => <code>{JSON.stringify(d)}</code> },
];

export default function Audit() {
  return <ListPage<Entry> resource="audit" title={t('menu.audit')} extra={<VerifyChains />} filters={filters()} useColumns={columns} />;
}
