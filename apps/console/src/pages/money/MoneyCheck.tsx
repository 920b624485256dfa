import { Alert, Button, Table, Typography } from 'antd';
import { useCustom } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { t } from '../../i18n';
import { ProblemAlert } from '../../components/ProblemAlert';
import { when, yuan } from '../../components/format';
import { MoneyTabs } from './MoneyTabs';

type Check = Schema<'MoneyCheck'>;

/** money:verify on demand: whether orders and wallet agree, and every mismatch with the order or payment and the fen. */
export default function MoneyCheck() {
  // run on demand only: the check reads every order and every ledger entry
  const { query } = useCustom<Check>({ url: '/api/admin/money-check', method: 'get', errorNotification: false, queryOptions: { enabled: false, retry: false } });
  const run = () => void query.refetch();
  const state = { loading: query.isFetching, error: query.error };
  const check = query.data?.data;
  return (
    <>
      <Typography.Title level={3}>{t('menu.money')}</Typography.Title>
      <MoneyTabs />
      <Button type="primary" onClick={run} loading={state.loading} style={{ marginBottom: 16 }}>
        {t('money.runCheck')}
      </Button>
      {state.error ? <ProblemAlert error={state.error} onRetry={run} /> : null}
      {check ? (
        <>
          <Alert
            type={check.mismatches.length ? 'error' : 'success'}
            message={check.mismatches.length ? `${t('money.mismatches')}: ${check.mismatches.length}` : t('money.agree')}
            description={`${t('money.checkedAt')} ${when(check.checked_at)}`}
            style={{ marginBottom: 16 }}
          />
          {check.mismatches.length ? (
            <Table<Schema<'MoneyMismatch'>>
              aria-label={t('money.mismatches')}
              rowKey={(m) => `${m.check} ${m.id}`}
              pagination={false}
              dataSource={check.mismatches}
              columns={[
                { title: t('money.rule'), dataIndex: 'check' },
                { title: 'ID', dataIndex: 'id' },
                { title: t('order.amount'), dataIndex: 'fen', render: yuan },
                { title: t('common.detail'), dataIndex: 'detail' },
              ]}
            />
          ) : null}
        </>
      ) : null}
    </>
  );
}
