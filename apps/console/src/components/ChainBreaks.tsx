import { Alert, Table } from 'antd';
import type { Schema } from '@market/sdk';
import { label, t } from '../i18n';

type Break = Schema<'ChainBreak'>;

/**
 * What a hash chain verification found (ADR 0067): a success line, or each broken chain with the
 * first entry at fault and what is wrong there, for the audit log and the ledger alike.
 */
export function ChainBreaks({ breaks, intact }: { breaks: Break[]; intact: string }) {
  return (
    <>
      <Alert type={breaks.length ? 'error' : 'success'} message={breaks.length ? `${t('chains.broken')}: ${breaks.length}` : intact} style={{ marginBottom: 16 }} />
      {breaks.length ? (
        <Table<Break>
          aria-label={t('chains.broken')}
          rowKey="chain"
          pagination={false}
          size="small"
          scroll={{ x: true }}
          dataSource={breaks}
          columns={[
            { title: t('chains.chain'), dataIndex: 'chain' },
            { title: t('chains.entry'), dataIndex: 'entry', render: (id: string | null) => id ?? '—' },
            { title: t('chains.problem'), dataIndex: 'problem', render: (p: string) => label('chainProblem', p) },
          ]}
        />
      ) : null}
    </>
  );
}
