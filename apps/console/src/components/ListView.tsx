import { Button, Empty, Space, Table, type TableColumnsType } from 'antd';
import type { ReactNode } from 'react';
import { t } from '../i18n';
import { ProblemAlert } from './ProblemAlert';
import type { useCursorList } from './use-cursor-list';

/** A list page's table with its loading, empty and error states and cursor paging. */
export function ListView<T extends object>({
  list,
  columns,
  rowKey,
  label,
  filters,
}: {
  list: ReturnType<typeof useCursorList<T>>;
  columns: TableColumnsType<T>;
  rowKey: keyof T & string;
  label: string;
  filters?: ReactNode;
}) {
  return (
    <>
      {filters}
      {list.error ? <ProblemAlert error={list.error} onRetry={list.reload} /> : null}
      <Table<T>
        aria-label={label}
        rowKey={rowKey}
        columns={columns}
        dataSource={list.page?.items ?? []}
        loading={list.loading}
        pagination={false}
        size="middle"
        scroll={{ x: true }}
        locale={{ emptyText: <Empty description={t('common.empty')} /> }}
      />
      <Space style={{ marginTop: 16 }}>
        <Button onClick={list.firstPage} disabled={!list.cursor}>
          {t('common.first')}
        </Button>
        <Button onClick={list.nextPage} disabled={!list.page?.next_cursor}>
          {t('common.next')}
        </Button>
      </Space>
    </>
  );
}
