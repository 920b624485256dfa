import { useState } from 'react';
import { App, Button, Form, Input, Modal, Select, Table, Tag } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../../session';
import { can } from '../../access';
import { t } from '../../i18n';
import { FormDialog } from '../../components/FormDialog';
import { ListView } from '../../components/ListView';
import { ProblemAlert } from '../../components/ProblemAlert';
import { useCursorList } from '../../components/use-cursor-list';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Run = Schema<'ReconciliationRun'>;
type Finding = Schema<'ReconciliationFinding'>;
const PROVIDERS: Run['provider'][] = ['alipay', 'wechatpay', 'sandbox'];

/** Yesterday in Asia/Shanghai (UTC+8 all year), the day the providers billed last. */
function shanghaiYesterday(): string {
  return new Date(Date.now() + 8 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
}

const money = (fen: number | null) => (fen === null ? '—' : yuan(fen));

/** One run's findings, both sides' reference and amount, loaded when opened. */
function FindingsButton({ run }: { run: Run }) {
  const [state, setState] = useState<{ open: boolean; items?: Finding[]; error?: unknown }>({ open: false });
  const open = () => {
    setState({ open: true });
    ok(market.api.GET('/api/admin/reconciliations/{id}', { params: { path: { id: run.id } } })).then(
      (detail) => setState({ open: true, items: detail.items }),
      (error: unknown) => setState({ open: true, error }),
    );
  };
  return (
    <>
      <Button onClick={open} disabled={run.findings === 0}>
        {t('money.findings')} ({run.findings})
      </Button>
      <Modal title={`${run.provider} · ${run.day}`} open={state.open} onCancel={() => setState({ open: false })} footer={null} width={900} destroyOnHidden>
        {state.error ? <ProblemAlert error={state.error} /> : null}
        <Table<Finding>
          aria-label={t('money.findings')}
          rowKey="id"
          pagination={false}
          loading={!state.items && !state.error}
          dataSource={state.items ?? []}
          scroll={{ x: true }}
          columns={[
            { title: t('money.finding'), dataIndex: 'kind', render: (k: Finding['kind']) => <Tag color="red">{t(`money.finding.${k}`)}</Tag> },
            { title: t('money.lineKind'), dataIndex: 'line_kind' },
            { title: t('money.reference'), dataIndex: 'reference' },
            { title: t('money.providerId'), dataIndex: 'provider_id' },
            { title: t('money.billAmount'), dataIndex: 'bill_amount', render: money },
            { title: t('money.ledgerAmount'), dataIndex: 'ledger_amount', render: money },
          ]}
        />
      </Modal>
    </>
  );
}

/** Daily reconciliation runs of the providers' bills with the ledger, their findings, and a run on demand. */
export default function Reconciliations() {
  const { message } = App.useApp();
  const list = useCursorList<Run>(
    [
      { name: 'provider', label: t('money.channel'), options: PROVIDERS, width: 140 },
      { name: 'status', label: t('common.status'), options: ['clean', 'findings'], width: 140 },
    ],
    (q) =>
      ok(
        market.api.GET('/api/admin/reconciliations', {
          params: { query: { cursor: q.cursor, provider: q.provider as Run['provider'] | undefined, status: q.status as Run['status'] | undefined } },
        }),
      ),
  );
  const runNow = (values: { provider: Run['provider']; day: string }) =>
    ok(market.api.POST('/api/admin/reconciliations', { body: values })).then(() => {
      void message.success(t('common.done'));
      list.reload();
    });
  const extra = (
    <>
      <MoneyTabs />
      {can('reconciliation.run') ? (
        <div style={{ marginBottom: 16 }}>
          <FormDialog<{ provider: Run['provider']; day: string }>
            label={t('money.runReconciliation')}
            button={{ type: 'primary' }}
            initialValues={{ provider: PROVIDERS[0], day: shanghaiYesterday() }}
            onSubmit={runNow}
          >
            <Form.Item label={t('money.channel')} name="provider" rules={[{ required: true }]}>
              <Select aria-label={t('money.channel')} options={PROVIDERS.map((p) => ({ value: p, label: p }))} />
            </Form.Item>
            <Form.Item label={t('money.day')} name="day" rules={[{ required: true, pattern: /^\d{4}-\d{2}-\d{2}$/ }]}>
              <Input placeholder="YYYY-MM-DD" />
            </Form.Item>
          </FormDialog>
        </div>
      ) : null}
    </>
  );
  return (
    <ListView<Run>
      title={t('menu.money')}
      extra={extra}
      list={list}
      rowKey="id"
      columns={[
        { title: t('money.day'), dataIndex: 'day' },
        { title: t('money.channel'), dataIndex: 'provider' },
        { title: t('common.status'), dataIndex: 'status', render: (s: Run['status']) => <Tag color={s === 'clean' ? 'green' : 'red'}>{t(`money.run.${s}`)}</Tag> },
        { title: t('money.billLines'), key: 'lines', render: (_, r) => `${r.matched} / ${r.bill_lines} · ${r.ledger_lines}` },
        { title: t('money.billTotal'), dataIndex: 'bill_total', render: yuan },
        { title: t('money.ledgerTotal'), dataIndex: 'ledger_total', render: yuan },
        { title: t('money.fees'), dataIndex: 'fee_total', render: yuan },
        { title: t('common.created'), dataIndex: 'created_at', render: when },
        { title: t('money.findings'), key: 'findings', render: (_, r) => <FindingsButton run={r} /> },
      ]}
    />
  );
}
