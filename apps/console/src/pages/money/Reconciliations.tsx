import { useState } from 'react';
import { Button, Form, Input, Modal, Select, Table, type TableColumnsType } from 'antd';
import { useOne } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { label, t } from '../../i18n';
import { useAllowed } from '../../use-allowed';
import type { ProblemError } from '../../data/problem';
import { FormDialog } from '../../components/FormDialog';
import { ListPage, type ListPageState } from '../../components/ListPage';
import { ProblemAlert } from '../../components/ProblemAlert';
import { Status } from '../../components/Status';
import type { FilterField } from '../../components/use-cursor-table';
import { useMove } from '../../components/use-move';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Run = Schema<'ReconciliationRun'>;
type Finding = Schema<'ReconciliationFinding'>;
type RunRequest = { provider: Run['provider']; day: string };
const PROVIDERS: Run['provider'][] = ['alipay', 'wechatpay', 'sandbox'];

/** Yesterday in Asia/Shanghai (UTC+8 all year), the day the providers billed last. */
function shanghaiYesterday(): string {
  return new Date(Date.now() + 8 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
}

const money = (fen: number | null) => (fen === null ? '—' : yuan(fen));

/** One run's findings, both sides' reference and amount, read (the resource's `one`) only once opened. */
function FindingsDialog({ run, onClose }: { run: Run; onClose: () => void }) {
  const { result, query } = useOne<Run & { items: Finding[] }, ProblemError>({ resource: 'reconciliations', id: run.id, errorNotification: false, queryOptions: { retry: false } });
  return (
    <Modal title={`${label('channel', run.provider)} · ${run.day}`} open onCancel={onClose} footer={null} width={900}>
      {query.error ? <ProblemAlert error={query.error} onRetry={() => void query.refetch()} /> : null}
      <Table<Finding>
        aria-label={t('money.findings')}
        rowKey="id"
        pagination={false}
        loading={query.isFetching}
        dataSource={result?.items ?? []}
        scroll={{ x: true }}
        columns={[
          { title: t('money.finding'), dataIndex: 'kind', render: (k: string) => <Status kind="finding" value={k} color="red" /> },
          { title: t('money.lineKind'), dataIndex: 'line_kind', render: (k: string) => <Status kind="lineKind" value={k} /> },
          { title: t('money.reference'), dataIndex: 'reference' },
          { title: t('money.providerId'), dataIndex: 'provider_id' },
          { title: t('money.billAmount'), dataIndex: 'bill_amount', render: money },
          { title: t('money.ledgerAmount'), dataIndex: 'ledger_amount', render: money },
        ]}
      />
    </Modal>
  );
}

function FindingsButton({ run }: { run: Run }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button onClick={() => setOpen(true)} disabled={run.findings === 0}>
        {t('money.findings')} ({run.findings})
      </Button>
      {open ? <FindingsDialog run={run} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

/** A run on demand of one provider's day, for an admin allowed to run one; the list is read again after it. */
function RunReconciliation({ onDone }: { onDone: () => void }) {
  const move = useMove();
  const mayRun = useAllowed('reconciliation.run');
  if (!mayRun) return null;
  const runNow = (values: RunRequest) => move('/api/admin/reconciliations', {}, values).then(onDone);
  return (
    <div style={{ marginBottom: 16 }}>
      <FormDialog<RunRequest> label={t('money.runReconciliation')} button={{ type: 'primary' }} initialValues={{ provider: PROVIDERS[0], day: shanghaiYesterday() }} onSubmit={runNow}>
        <Form.Item label={t('money.channel')} name="provider" rules={[{ required: true }]}>
          <Select aria-label={t('money.channel')} options={PROVIDERS.map((p) => ({ value: p, label: label('channel', p) }))} />
        </Form.Item>
        <Form.Item label={t('money.day')} name="day" rules={[{ required: true, pattern: /^\d{4}-\d{2}-\d{2}$/ }]}>
          <Input placeholder="YYYY-MM-DD" />
        </Form.Item>
      </FormDialog>
    </div>
  );
}

const filters = (): FilterField[] => [
  { name: 'provider', label: t('money.channel'), options: PROVIDERS, labels: 'channel', width: 140 },
  { name: 'status', label: t('common.status'), options: ['clean', 'findings'], labels: 'reconciliation', width: 140 },
];

const columns = (): TableColumnsType<Run> => [
  { title: t('money.day'), dataIndex: 'day' },
  { title: t('money.channel'), dataIndex: 'provider', render: (p: string) => <Status kind="channel" value={p} /> },
  { title: t('common.status'), dataIndex: 'status', render: (s: Run['status']) => <Status kind="reconciliation" value={s} color={s === 'clean' ? 'green' : 'red'} /> },
  { title: t('money.billLines'), key: 'lines', render: (_, r) => `${r.matched} / ${r.bill_lines} · ${r.ledger_lines}` },
  { title: t('money.billTotal'), dataIndex: 'bill_total', render: yuan },
  { title: t('money.ledgerTotal'), dataIndex: 'ledger_total', render: yuan },
  { title: t('money.fees'), dataIndex: 'fee_total', render: yuan },
  { title: t('common.created'), dataIndex: 'created_at', render: when },
  { title: t('money.findings'), key: 'findings', render: (_, r) => <FindingsButton run={r} /> },
];

/** The Money page's tabs, and the run on demand, after which the list is read again. */
const extra = ({ list }: ListPageState<Run>) => (
  <>
    <MoneyTabs />
    <RunReconciliation onDone={list.reload} />
  </>
);

/** Daily reconciliation runs of the providers' bills with the ledger, their findings, and a run on demand. */
export default function Reconciliations() {
  return <ListPage<Run> resource="reconciliations" title={t('menu.money')} extra={extra} filters={filters()} useColumns={columns} />;
}
