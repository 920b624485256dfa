import { useState } from 'react';
import { Button, Card, Col, Row, Typography } from 'antd';
import { useCustom } from '@refinedev/core';
import { LEDGER_CHAIN_CHECK } from '@market/contracts';
import type { Schema } from '@market/sdk';
import { t } from '../../i18n';
import type { ProblemError } from '../../data/problem';
import { ChainBreaks } from '../../components/ChainBreaks';
import { Findings } from '../../components/Findings';
import { ProblemAlert } from '../../components/ProblemAlert';
import { useMove } from '../../components/use-move';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Check = Schema<'MoneyCheck'>;

/** Orders against the wallet: every mismatch with the order or payment and the fen. */
function CrossService({ check }: { check: Check }) {
  return (
    <Card title={t('money.crossService')} size="small">
      <Findings<Schema<'MoneyMismatch'>>
        rows={check.mismatches}
        found={t('money.mismatches')}
        sound={t('money.agree')}
        rowKey={(m) => `${m.check} ${m.id}`}
        columns={[
          { title: t('money.rule'), dataIndex: 'check' },
          { title: 'ID', dataIndex: 'id' },
          { title: t('order.amount'), dataIndex: 'fen', render: yuan },
          { title: t('common.detail'), dataIndex: 'detail' },
        ]}
      />
    </Card>
  );
}

/**
 * The ledger's hash chains (ADR 0067), one per account: the money check recomputes them with the
 * other ledger rules, and its rows of breaks are shown here as such; the button runs the check anew.
 */
function LedgerChains({ ledger, verify, running }: { ledger: Check['ledger'] | undefined; verify: () => void; running: boolean }) {
  const chains = ledger?.differences.find((d) => d.check === LEDGER_CHAIN_CHECK);
  return (
    <Card title={t('chains.verify')} size="small" extra={<Button onClick={verify} loading={running}>{t('chains.verify')}</Button>}>
      {ledger ? <ChainBreaks breaks={(chains?.rows ?? []) as Schema<'ChainBreak'>[]} intact={t('chains.ledgerIntact')} /> : null}
    </Card>
  );
}

/** The wallet's double-entry ledger: each rule that does not hold, with the rows that break it as the check read them. */
function LedgerFindings({ ledger }: { ledger: Check['ledger'] }) {
  const differences = ledger.differences.filter((d) => d.check !== LEDGER_CHAIN_CHECK);
  return (
    <Card title={t('money.ledgerCheck')} size="small">
      <Findings<Schema<'LedgerDifference'>>
        rows={differences}
        found={t('money.ledgerDifferences')}
        sound={t('money.ledgerSound', { checks: ledger.checks })}
        rowKey="check"
        columns={[
          { title: t('money.rule'), dataIndex: 'check' },
          { title: t('money.rows'), dataIndex: 'rows', render: (rows: Schema<'LedgerDifference'>['rows']) => <code style={{ whiteSpace: 'pre-wrap' }}>{rows.map((r) => JSON.stringify(r)).join('\n')}</code> },
        ]}
      />
    </Card>
  );
}

/**
 * The money check: whether orders and wallet agree, and whether the wallet's ledger balances.
 * Opening the page reads the latest result (the server answers one under a minute old and runs the
 * check only when older); the button asks for a fresh run.
 */
export default function MoneyCheck() {
  const { query } = useCustom<Check>({ url: '/api/admin/money-check', method: 'get', errorNotification: false, queryOptions: { retry: false } });
  const move = useMove();
  const [fresh, setFresh] = useState<{ check?: Check; error?: ProblemError; running: boolean }>({ running: false });
  const run = () => {
    setFresh((current) => ({ ...current, running: true }));
    move<Check>('/api/admin/money-check', {}).then(
      (check) => setFresh({ check, running: false }),
      (error: ProblemError) => setFresh((current) => ({ ...current, error, running: false })),
    );
  };
  const check = fresh.check ?? query.data?.data;
  const error = fresh.error ?? (fresh.check ? undefined : query.error);
  return (
    <>
      <Typography.Title level={3}>{t('menu.money')}</Typography.Title>
      <MoneyTabs />
      <Button type="primary" onClick={run} loading={fresh.running} style={{ marginBottom: 16 }}>
        {t('money.runCheck')}
      </Button>
      {error ? <ProblemAlert error={error} onRetry={run} /> : null}
      {check ? (
        <>
          <Typography.Paragraph>
            {t('money.checkedAt')} {when(check.checked_at)}
          </Typography.Paragraph>
          <Row gutter={[16, 16]}>
            <Col xs={24} xl={12}>
              <CrossService check={check} />
            </Col>
            <Col xs={24} xl={12}>
              <LedgerFindings ledger={check.ledger} />
            </Col>
            <Col xs={24}>
              <LedgerChains ledger={check.ledger} verify={run} running={fresh.running} />
            </Col>
          </Row>
        </>
      ) : null}
    </>
  );
}
