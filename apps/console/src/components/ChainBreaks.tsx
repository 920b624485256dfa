import type { Schema } from '@market/sdk';
import { label, t } from '../i18n';
import { Findings } from './Findings';

type Break = Schema<'ChainBreak'>;

/**
 * What a hash chain verification found (ADR 0067): a success line, or each broken chain with the
 * first entry at fault and what is wrong there, for the audit log and the ledger alike.
 */
export function ChainBreaks({ breaks, intact }: { breaks: Break[]; intact: string }) {
  return (
    <Findings<Break>
      rows={breaks}
      found={t('chains.broken')}
      sound={intact}
      rowKey="chain"
      columns={[
        { title: t('chains.chain'), dataIndex: 'chain' },
        { title: t('chains.entry'), dataIndex: 'entry', render: (id: string | null) => id ?? '—' },
        { title: t('chains.problem'), dataIndex: 'problem', render: (p: string) => label('chainProblem', p) },
      ]}
    />
  );
}
